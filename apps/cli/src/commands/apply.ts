import { printTVMScript } from "@tessera/ir";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { loadScheduled } from "../scheduled.js";
import { applySpec } from "./specs.js";

/**
 * `tessera apply FILE --trace TRACE [--func NAME]`: replay a schedule trace (our JSON format, TVM's,
 * or the text `trace.show()` prints) on a function of a TVMScript file and print the scheduled function.
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(applySpec, args);
  if (positionals.length !== 1 || values.trace === undefined) throw new CliError(`usage: tessera apply ${applySpec.usage}`);
  const { name, func } = await loadScheduled(positionals[0]!, { trace: values.trace, func: values.func });
  io.stdout(printTVMScript(func, { funcName: name }));
  return 0;
}

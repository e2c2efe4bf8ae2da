import { parseArgs } from "node:util";
import { printTVMScript } from "@tessera/ir";
import { CliError } from "../errors.js";
import type { CliIO } from "../io.js";
import { loadScheduled } from "../scheduled.js";

const USAGE = "usage: tessera apply FILE --trace TRACE.json [--func NAME]";

/**
 * `tessera apply FILE --trace TRACE.json [--func NAME]`: replay a schedule trace (our JSON format
 * or TVM's) on a function of a TVMScript file and print the scheduled function.
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: { trace: { type: "string" }, func: { type: "string" } },
  });
  if (positionals.length !== 1 || values.trace === undefined) throw new CliError(USAGE);
  const { name, func } = await loadScheduled(positionals[0]!, { trace: values.trace, func: values.func });
  io.stdout(printTVMScript(func, { funcName: name }));
  return 0;
}

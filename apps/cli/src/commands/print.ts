import { printTVMScript } from "@tessera/ir";
import { type ColorFlag, colorEnabled } from "../color.js";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { loadModule } from "../load.js";
import { printSpec } from "./specs.js";

/** `tessera print FILE [--dialect course|tvm] [--color | --no-color]`: parse a TVMScript file and print it back canonically. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(printSpec, args);
  if (positionals.length !== 1) throw new CliError(`usage: tessera print ${printSpec.usage}`);
  if (values.color === true && values["no-color"] === true) throw new CliError("give --color or --no-color, not both");
  const flag: ColorFlag = values.color === true ? "always" : values["no-color"] === true ? "never" : undefined;
  const color = colorEnabled(io, flag);
  const dialect = values.dialect ?? "course";
  if (dialect !== "course" && dialect !== "tvm") throw new CliError(`--dialect must be course or tvm, got "${dialect}"`);
  const mod = await loadModule(positionals[0]!);
  // A file holding one bare function prints as that function, a module as a module.
  const only = mod.functions.size === 1 ? [...mod.functions][0]! : undefined;
  const text = only !== undefined ? printTVMScript(only[1], { color, dialect, funcName: only[0] }) : printTVMScript(mod, { color, dialect });
  io.stdout(text);
  return 0;
}

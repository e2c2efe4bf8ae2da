import { parseArgs } from "node:util";
import { printTVMScript } from "@tessera/ir";
import { CliError } from "../errors.js";
import type { CliIO } from "../io.js";
import { loadModule } from "../load.js";

/** `tessera print FILE [--color]`: parse a TVMScript file and print it back canonically. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: { color: { type: "boolean" } },
  });
  if (positionals.length !== 1) {
    throw new CliError("usage: tessera print FILE [--color]");
  }
  const mod = await loadModule(positionals[0]!);
  // A file holding one bare function prints as that function, a module as a module.
  const only = mod.functions.size === 1 ? [...mod.functions][0]! : undefined;
  const text =
    only !== undefined
      ? printTVMScript(only[1], { color: values.color === true, funcName: only[0] })
      : printTVMScript(mod, { color: values.color === true });
  io.stdout(text);
  return 0;
}

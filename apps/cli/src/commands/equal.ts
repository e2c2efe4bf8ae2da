import { type IRModule, type PrimFunc, structuralDiff } from "@tessera/ir";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { loadModule } from "../load.js";
import { equalSpec } from "./specs.js";

/**
 * `tessera equal A B`: structural equality of two TVMScript programs (names of variables,
 * buffers and blocks do not matter). Exit 0 when equal, 1 with the first difference otherwise.
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(equalSpec, args);
  if (positionals.length !== 2) throw new CliError(`usage: tessera equal ${equalSpec.usage}`);
  const [fileA, fileB] = positionals as [string, string];
  const [a, b] = await Promise.all([loadModule(fileA), loadModule(fileB)]);
  const diff = structuralDiff(comparable(a, b), comparable(b, a), { compareNames: values.names === true });
  if (diff === undefined) {
    io.stdout(`${fileA} and ${fileB} are structurally equal\n`);
    return 0;
  }
  io.stdout(`${fileA} and ${fileB} differ\n  at ${diff.path}\n  ${diff.description}\n`);
  return 1;
}

/** Two single-function files compare as functions, so `def main` and `def f` can be equal. */
function comparable(mod: IRModule, other: IRModule): IRModule | PrimFunc {
  if (mod.functions.size === 1 && other.functions.size === 1) return [...mod.functions.values()][0]!;
  return mod;
}

import { type PrimFunc, type TypedArray, ExecutionError, compilePrimFunc, paramBuffers, randomArgs } from "@tessera/ir";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { loadModule, pickFunction } from "../load.js";
import { summarizeArray } from "../summary.js";
import { runSpec } from "./specs.js";
import { parseNonNegativeInt } from "../int-options.js";

/** `tessera run FILE [--seed N] [--func NAME]`: execute a PrimFunc on seeded random inputs. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(runSpec, args);
  if (positionals.length !== 1) throw new CliError(`usage: tessera run ${runSpec.usage}`);
  const file = positionals[0]!;
  const seed = parseSeed(values.seed);
  const { name, func } = pickFunction(await loadModule(file), file, values.func);
  const scalarParams = func.params.filter((p) => !func.bufferMap.has(p));
  if (scalarParams.length > 0) {
    throw new CliError(
      `${file}: function ${name} has scalar parameters (${scalarParams.map((p) => p.name).join(", ")}); 'run' supports buffer parameters only`,
    );
  }
  const inputs = randomArgs(func, seed);
  const before = inputs.map((a) => a.slice() as TypedArray);
  try {
    compilePrimFunc(func).run(inputs);
  } catch (err) {
    if (err instanceof ExecutionError) throw new CliError(`${file}: ${name}: ${err.message}`);
    throw err;
  }
  io.stdout(report(name, func, seed, inputs, before));
  return 0;
}

function report(name: string, func: PrimFunc, seed: number, after: TypedArray[], before: TypedArray[]): string {
  const lines = [`ran ${name} on random inputs (seed ${seed})`];
  paramBuffers(func).forEach((buffer, i) => {
    const changed = !sameContents(before[i]!, after[i]!);
    lines.push(`  ${buffer.name}${changed ? " (written)" : ""}: ${summarizeArray(buffer, after[i]!)}`);
  });
  return lines.join("\n") + "\n";
}

function sameContents(a: TypedArray, b: TypedArray): boolean {
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** `--seed`: 0 when absent. */
export function parseSeed(raw: string | undefined): number {
  return parseNonNegativeInt("--seed", raw) ?? 0;
}

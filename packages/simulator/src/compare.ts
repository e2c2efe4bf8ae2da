/**
 * Checks a lowered module against its unscheduled function: the sequential executor runs the
 * original, the simulator runs the module, on the same random inputs, with outputs poisoned
 * beforehand so that elements the kernels never write show up as NaN (which never matches).
 */
import { type Buffer, type PrimFunc, type TypedArray, forEachExpr, forEachStmt, paramBuffers, randomArgs, toleranceForDType } from "@tessera/ir";
import type { LoweredModule } from "@tessera/codegen";
import { SimulationError } from "./errors.js";
import { poisonValue } from "./poison.js";
import { referenceRun } from "./reference-outputs.js";
import type { SimulationReport } from "./reports.js";
import type { SimulationOptions } from "./simulate-kernel.js";
import { simulate } from "./simulate.js";

export interface CompareOptions {
  /** Seed of the random inputs (default 0). */
  readonly seed?: number;
  /** Relative tolerance (default 1e-5). */
  readonly rtol?: number;
  /** Absolute tolerance (default 1e-6). An element matches when |actual - expected| ≤ atol + rtol·|expected|. */
  readonly atol?: number;
  /**
   * Widen the tolerance of float16/bfloat16 outputs to at least two ulps of their format
   * (`toleranceForDType`; default true): correct kernels may round float32 sums differently.
   */
  readonly widenForDType?: boolean;
  /** Mismatches listed per output (default 10). */
  readonly maxMismatches?: number;
  readonly simulation?: SimulationOptions;
}

export interface Mismatch {
  readonly buffer: string;
  /** Indices in the original buffer's shape. */
  readonly indices: readonly number[];
  readonly expected: number;
  readonly actual: number;
}

export interface OutputComparison {
  readonly buffer: string;
  readonly elements: number;
  readonly mismatchCount: number;
  readonly maxAbsError: number;
  readonly maxRelError: number;
  readonly firstMismatches: readonly Mismatch[];
}

export interface ComparisonReport {
  readonly seed: number;
  readonly rtol: number;
  readonly atol: number;
  /** Every output element within tolerance. */
  readonly matches: boolean;
  /** Matches and the simulator found no race. */
  readonly passed: boolean;
  readonly outputs: readonly OutputComparison[];
  readonly mismatchCount: number;
  readonly maxAbsError: number;
  readonly maxRelError: number;
  /** The reference run's milliseconds in this call: 0 when an earlier call's outputs were reused (reference-outputs.ts). */
  readonly referenceTimeMs: number;
  readonly simulation: SimulationReport;
}

export function compareWithReference(module: LoweredModule, original: PrimFunc, opts: CompareOptions = {}): ComparisonReport {
  const seed = opts.seed ?? 0;
  const rtol = opts.rtol ?? 1e-5;
  const atol = opts.atol ?? 1e-6;
  if (original.params.some((p) => !original.bufferMap.has(p))) {
    throw new SimulationError(`compareWithReference: ${module.name} has scalar parameters; only buffer parameters are supported`);
  }
  const buffers = paramBuffers(original);
  const outputs = outputIndices(original, buffers);
  const simulated = randomArgs(original, seed);
  outputs.forEach((i) => simulated[i]!.fill(poisonValue(buffers[i]!.dtype)));
  const { outputs: reference, timeMs: referenceTimeMs } = referenceRun(original, seed, simulated, outputs);
  const simulation = simulate(module, simulated, opts.simulation);

  const compared = outputs.map((i) =>
    compareArrays(buffers[i]!, reference.get(i)!, simulated[i]!, {
      ...(opts.widenForDType === false ? { rtol, atol } : toleranceForDType(buffers[i]!.dtype, { rtol, atol })),
      maxMismatches: opts.maxMismatches ?? 10,
    }),
  );
  const mismatchCount = compared.reduce((n, c) => n + c.mismatchCount, 0);
  return {
    seed,
    rtol,
    atol,
    matches: mismatchCount === 0,
    passed: mismatchCount === 0 && simulation.raceCount === 0,
    outputs: compared,
    mismatchCount,
    maxAbsError: Math.max(0, ...compared.map((c) => c.maxAbsError)),
    maxRelError: Math.max(0, ...compared.map((c) => c.maxRelError)),
    referenceTimeMs,
    simulation,
  };
}

/**
 * Parameters the function stores to and never loads from (in-place buffers keep their inputs),
 * and parameters written by a reduction block with an init statement: `C = C + A·B` loads C,
 * but only after the init defined it, so C is an output (not comparing it made every matmul pass).
 */
function outputIndices(func: PrimFunc, buffers: readonly Buffer[]): number[] {
  const written = new Set<unknown>();
  const read = new Set<unknown>();
  const initialized = new Set<unknown>();
  forEachStmt(func.body, (s) => {
    if (s.kind === "BufferStore") written.add(s.buffer.data);
    if (s.kind === "BlockRealize" && s.block.init !== undefined) for (const w of s.block.writes) initialized.add(w.buffer.data);
  });
  forEachExpr(func.body, (e) => {
    if (e.kind === "BufferLoad") read.add(e.buffer.data);
  });
  return buffers.flatMap((b, i) => (written.has(b.data) && (!read.has(b.data) || initialized.has(b.data)) ? [i] : []));
}

function compareArrays(buffer: Buffer, expected: TypedArray, actual: TypedArray, tol: { rtol: number; atol: number; maxMismatches: number }): OutputComparison {
  const shape = buffer.shape.map((s) => (s.kind === "IntImm" ? s.value : Number.NaN));
  let mismatchCount = 0;
  let maxAbsError = 0;
  let maxRelError = 0;
  const firstMismatches: Mismatch[] = [];
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    const abs = Math.abs(a - e);
    const rel = abs === 0 ? 0 : abs / Math.abs(e);
    // NaN errors (a poisoned or invalid element on either side) count as mismatches and as infinite error.
    if (Number.isNaN(abs) || abs > maxAbsError) maxAbsError = Number.isNaN(abs) ? Infinity : abs;
    if (Number.isNaN(rel) || rel > maxRelError) maxRelError = Number.isNaN(rel) ? Infinity : rel;
    if (abs <= tol.atol + tol.rtol * Math.abs(e)) continue;
    mismatchCount++;
    if (firstMismatches.length < tol.maxMismatches) {
      firstMismatches.push({ buffer: buffer.name, indices: rowMajorIndices(i, shape), expected: e, actual: a });
    }
  }
  return { buffer: buffer.name, elements: expected.length, mismatchCount, maxAbsError, maxRelError, firstMismatches };
}

function rowMajorIndices(flat: number, shape: readonly number[]): number[] {
  if (shape.some((n) => !Number.isInteger(n))) return [flat];
  const indices = new Array<number>(shape.length);
  for (let k = shape.length - 1; k >= 0; k--) {
    indices[k] = flat % shape[k]!;
    flat = Math.floor(flat / shape[k]!);
  }
  return indices;
}

/**
 * Random inputs of the graded workload, and the output comparison shared
 * by the simulator and GPU numerics (one rule: |got − ref| ≤ atol + rtol·|ref|, NaN never passes).
 */
import type { NumericsRound } from "./numerics-types.js";

/** n values uniform in [low, high) from `seed` (mulberry32: fast, and the same on every machine). */
export function uniformArray(n: number, seed: number, low: number, high: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  const span = high - low;
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = low + (((t ^ (t >>> 14)) >>> 0) / 4294967296) * span;
  }
  return out;
}

/** The inputs A, B, C of D = ReLU(A·B) + C (n×n each) for one round. */
export function gemmReluAddInputs(n: number, seed: number, range: readonly [number, number]): [Float32Array, Float32Array, Float32Array] {
  const [low, high] = range;
  return [uniformArray(n * n, seed * 3 + 1, low, high), uniformArray(n * n, seed * 3 + 2, low, high), uniformArray(n * n, seed * 3 + 3, low, high)];
}

/**
 * Compares an n×n output with its reference. `poisoned` says whether the output was filled with
 * NaN before the run (then a NaN left means "never written").
 */
export function compareOutput(
  got: Float32Array,
  ref: Float64Array,
  n: number,
  tol: { readonly rtol: number; readonly atol: number },
  seed: number,
  outputName = "D",
): NumericsRound {
  let mismatches = 0;
  let unwritten = 0;
  let maxAbsError = 0;
  let firstMismatch: string | undefined;
  for (let i = 0; i < ref.length; i++) {
    const g = got[i]!;
    const r = ref[i]!;
    if (Number.isNaN(g)) unwritten++;
    const d = Math.abs(g - r);
    if (d <= tol.atol + tol.rtol * Math.abs(r)) {
      if (d > maxAbsError) maxAbsError = d;
      continue;
    }
    mismatches++;
    if (firstMismatch === undefined) {
      const what = Number.isNaN(g) ? "was never written" : `= ${g.toPrecision(6)}`;
      firstMismatch = `${outputName}[${Math.floor(i / n)}, ${i % n}] ${what}; the reference is ${r.toPrecision(6)}`;
    }
  }
  if (got.length !== ref.length) mismatches += Math.abs(got.length - ref.length);
  return { seed, elements: ref.length, mismatches, unwritten, maxAbsError, ...(firstMismatch === undefined ? {} : { firstMismatch }) };
}

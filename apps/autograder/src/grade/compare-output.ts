/**
 * The output comparison shared by the simulator and GPU numerics (one rule: |got − ref| ≤ atol +
 * rtol·|ref|, NaN never passes). The inputs come from the assignment's binding.
 */
import type { NumericsRound } from "./numerics-types.js";

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
  outputName: string,
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

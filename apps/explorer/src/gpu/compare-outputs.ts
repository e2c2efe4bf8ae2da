/** How far one run's buffers are from another's: the largest error and the elements beyond the dtype's tolerance. */
import { type DType, type Tolerance, type TypedArray, toleranceForDType } from "@tessera/ir";

/** float32 results of a GPU may differ from the executor's in rounding (fused multiply-adds, another summation order). */
export const GPU_TOLERANCE: Tolerance = { rtol: 1e-4, atol: 1e-5 };

export interface OutputComparison {
  /** Largest |got − expected| / max(1, |expected|) over every element (Infinity for a NaN where a number was expected). */
  readonly maxError: number;
  /** Elements with |got − expected| > atol + rtol·|expected| (NaN matches NaN). */
  readonly mismatches: number;
  readonly elements: number;
}

export function compareOutputs(got: readonly TypedArray[], expected: readonly TypedArray[], dtypes: readonly DType[]): OutputComparison {
  if (got.length !== expected.length || dtypes.length !== got.length) {
    throw new RangeError(`compareOutputs: ${got.length} buffers against ${expected.length}, with ${dtypes.length} dtypes`);
  }
  let maxError = 0;
  let mismatches = 0;
  let elements = 0;
  got.forEach((g, b) => {
    const e = expected[b]!;
    if (g.length !== e.length) throw new RangeError(`compareOutputs: buffer ${b} has ${g.length} elements against ${e.length}`);
    const { rtol, atol } = toleranceForDType(dtypes[b]!, GPU_TOLERANCE);
    for (let i = 0; i < g.length; i++) {
      const x = Number(g[i]);
      const y = Number(e[i]);
      elements++;
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      const diff = Math.abs(x - y);
      if (!(diff <= atol + rtol * Math.abs(y))) mismatches++;
      const error = diff / Math.max(1, Math.abs(y));
      maxError = Math.max(maxError, Number.isNaN(error) ? Number.POSITIVE_INFINITY : error);
    }
  });
  return { maxError, mismatches, elements };
}

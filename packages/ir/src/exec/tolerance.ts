/**
 * How far two correct results of one dtype may differ. Two correct kernels with 16-bit float
 * outputs may sum their float32 partial products in different orders (tiles, split reductions,
 * fused multiply-adds) and so round to neighbouring 16-bit values; a comparison of such outputs
 * allows two units in the last place of the format. Other dtypes keep the comparison's own
 * tolerance, so float32 checks are unchanged.
 */
import { type DType, dtypeInfo } from "../dtype.js";

export interface Tolerance {
  /** Relative: an element matches when |actual − expected| ≤ atol + rtol·|expected|. */
  readonly rtol: number;
  readonly atol: number;
}

/** Two units in the last place, relative: 2 · 2^-mantissaBits. */
const HALF_TOLERANCE: Readonly<Record<string, number>> = { float16: 2 ** -9, bfloat16: 2 ** -6 };

/** `base` (the checker's float32 tolerance), widened to at least two ulps for float16 and bfloat16. */
export function toleranceForDType(dtype: DType, base: Tolerance): Tolerance {
  const { code, bits } = dtypeInfo(dtype);
  const floor = code === "bfloat" ? HALF_TOLERANCE.bfloat16 : code === "float" && bits === 16 ? HALF_TOLERANCE.float16 : undefined;
  if (floor === undefined) return base;
  return { rtol: Math.max(base.rtol, floor), atol: Math.max(base.atol, floor) };
}

/**
 * `ceil(log2(x))`, the form of topi's `ceil_log2` (and of iteration bounds made from it): what the
 * simplifier folds and the bound analysis reads through, as TVM's. The logarithm is rounded to the
 * argument's float type before `ceil`, as the executor computes it, so a float32 argument just past
 * a power of two gives the float32 answer.
 */
import { type DType, bitsOf } from "../dtype.js";
import type { PrimExpr } from "../expr.js";

/** `x` of `ceil(log2(x))`, or undefined when `e` is not that form. */
export function ceilLog2Argument(e: PrimExpr): PrimExpr | undefined {
  if (e.kind !== "Call" || e.op !== "ceil" || e.args.length !== 1) return undefined;
  const inner = e.args[0]!;
  return inner.kind === "Call" && inner.op === "log2" && inner.args.length === 1 ? inner.args[0] : undefined;
}

/** `ceil(log2(v))` computed in `dt` (float32 or float64); undefined for v ≤ 0, non-finite v or other types. */
export function ceilLog2Value(v: number, dt: DType): number | undefined {
  if (!(v > 0) || !Number.isFinite(v)) return undefined;
  const bits = bitsOf(dt);
  if (bits !== 32 && bits !== 64) return undefined;
  const log = bits === 32 ? Math.fround(Math.log2(Math.fround(v))) : Math.log2(v);
  return Math.ceil(log);
}

/**
 * A vector index as one ramp. Flattening a buffer access whose last index is a ramp gives
 * `Broadcast(row offset) + Ramp(column, 1, n)` (TVM's Simplify folds such sums with its
 * ramp/broadcast rules); passes that need the ramp's base and stride (a warp register pair, an
 * aligned vector store) read it through `asRamp`.
 */
import { type PrimExpr, type Ramp, add, intImm, ramp } from "../expr.js";

/** `e` (ramps and broadcasts of one lane count added, constant strides) as `Ramp(base, stride, lanes)`; undefined for a scalar or any other form. */
export function asRamp(e: PrimExpr): Ramp | undefined {
  if (e.kind === "Ramp") return e.stride.kind === "IntImm" ? e : undefined;
  if (e.kind === "Broadcast")
    return e.value.kind === "IntImm" || e.value.dtype.startsWith("int") ? ramp(e.value, intImm(0, e.value.dtype), e.lanes) : undefined;
  if (e.kind !== "Binary" || e.op !== "add") return undefined;
  const [a, b] = [asRamp(e.a), asRamp(e.b)];
  if (a === undefined || b === undefined || a.lanes !== b.lanes || a.stride.kind !== "IntImm" || b.stride.kind !== "IntImm") return undefined;
  return ramp(plus(a.base, b.base), intImm(a.stride.value + b.stride.value, a.base.dtype), a.lanes);
}

/** `x + y`, without a zero term. */
function plus(x: PrimExpr, y: PrimExpr): PrimExpr {
  if (y.kind === "IntImm" && y.value === 0) return x;
  if (x.kind === "IntImm" && x.value === 0) return y;
  return add(x, y);
}

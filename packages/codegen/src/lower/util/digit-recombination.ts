/**
 * The flat index of `A[x // (n*m), x % (n*m) // m, x % m]` in a compact row-major buffer of shape
 * `(_, n, m)` is `x`: the indices are the mixed-radix digits of one value. TVM's FlattenBuffer finds
 * this through iterator-map simplification under the loop ranges; the identities below hold for any
 * x and non-zero strides, so no range is needed: `x // S * S + x % S = x`, and
 * `x % Y // S * S + x % S = x % Y` when S divides Y (each stride is the next one times a dimension).
 */
import type { PrimExpr } from "@tessera/ir";

type Binary = PrimExpr & { kind: "Binary" };

function floorOp(e: PrimExpr, op: "floordiv" | "floormod"): Binary | undefined {
  return e.kind === "Binary" && e.op === op ? e : undefined;
}

/**
 * `x` when `Σ indices[d] · strides[d]` (compact row-major strides, innermost 1) recombines to it,
 * else undefined. `equal` decides whether two expressions are provably equal.
 */
export function recombineDigits(
  indices: readonly PrimExpr[],
  strides: readonly PrimExpr[],
  equal: (a: PrimExpr, b: PrimExpr) => boolean,
): PrimExpr | undefined {
  const m = indices.length;
  if (m < 2 || strides.length !== m) return undefined;
  const innermost = floorOp(indices[m - 1]!, "floormod");
  if (innermost === undefined || !equal(innermost.b, strides[m - 2]!)) return undefined;
  const x = innermost.a;
  const sameX = (e: PrimExpr): boolean => equal(e, x);
  for (let d = m - 2; d >= 1; d--) {
    // indices[d] = x % strides[d - 1] // strides[d]
    const div = floorOp(indices[d]!, "floordiv");
    const mod = div === undefined ? undefined : floorOp(div.a, "floormod");
    if (div === undefined || mod === undefined || !sameX(mod.a) || !equal(mod.b, strides[d - 1]!) || !equal(div.b, strides[d]!)) return undefined;
  }
  const outer = floorOp(indices[0]!, "floordiv");
  return outer !== undefined && sameX(outer.a) && equal(outer.b, strides[0]!) ? x : undefined;
}

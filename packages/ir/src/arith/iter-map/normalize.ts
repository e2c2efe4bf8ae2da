/** From iterator-map form back to expressions, and the simplifier built on the round trip. */
import { type PrimExpr, type Var, add, floordiv, floormod, intImm, mul } from "../../expr.js";
import type { Range } from "../../stmt.js";
import { detectIterMap } from "./detect.js";
import { type IterMark, type IterSplit, type IterSum, markExtent, splitExtent, splitLower, splitScale, sumBase } from "./types.js";

function markToExpr(mark: IterMark): PrimExpr {
  return mark.source.kind === "IterSum" ? normalizeIterMapToExpr(mark.source) : mark.source;
}

/** `floormod(floordiv(source, lower), extent) * scale`, leaving out the parts that do nothing. */
export function iterSplitToExpr(split: IterSplit): PrimExpr {
  const source = markToExpr(split.source);
  const [lower, extent, scale] = [splitLower(split), splitExtent(split), splitScale(split)];
  if (extent === 1) return intImm(0, source.dtype);
  let value: PrimExpr = lower === 1 ? source : floordiv(source, lower);
  // The top digit of a mark needs no remainder: the quotient is already below `extent`.
  if (lower * extent < markExtent(split.source)) value = floormod(value, extent);
  return scale === 1 ? value : mul(value, scale);
}

export function normalizeIterMapToExpr(sum: IterSum): PrimExpr {
  const base = sumBase(sum);
  let result: PrimExpr | undefined;
  for (const arg of sum.args) {
    if (splitExtent(arg) === 1) continue;
    const term = iterSplitToExpr(arg);
    result = result === undefined ? term : add(result, term);
  }
  if (result === undefined) return intImm(base, sum.base.dtype);
  return base === 0 ? result : add(result, base);
}

/**
 * Simplifies indices through iterator-map detection (`floordiv(i*4 + j, 4)` → `i` for `j < 4`,
 * `floormod(i0*32 + i1, 32)` → `i1`, unit-extent iterators → their minimum). Returns the original
 * expressions when they are not an independent affine map.
 */
export function iterMapSimplify(indices: readonly PrimExpr[], inputIters: ReadonlyMap<Var, Range>, predicate?: PrimExpr): PrimExpr[] {
  const result = detectIterMap(indices, inputIters, predicate);
  if (result.errors.length > 0) return [...indices];
  return result.indices.map((sum, k) => {
    const e = normalizeIterMapToExpr(sum);
    const original = indices[k]!;
    return e.dtype === original.dtype ? e : original;
  });
}

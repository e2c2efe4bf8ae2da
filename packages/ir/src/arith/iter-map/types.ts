/**
 * The affine iterator-map forms of TVM's `iter_affine_map` (in our own words):
 *
 * - an `IterMark` is an iterator ranging over `[0, extent)`; its `source` is either an input
 *   iterator expression (a loop var, shifted to start at 0) or an `IterSum` of other splits
 *   (a fused iterator);
 * - an `IterSplit` takes a digit of a mark: `floormod(floordiv(source, lowerFactor), extent) * scale`;
 * - an `IterSum` is `sum(args) + base`.
 *
 * Detection only produces constant factors, extents and scales (IntImm); the fields are PrimExprs so
 * that symbolic forms can be added later without changing the shape of the API.
 */
import { IRError } from "../../errors.js";
import { type PrimExpr, intImm } from "../../expr.js";

export interface IterMark {
  readonly kind: "IterMark";
  readonly source: PrimExpr | IterSum;
  readonly extent: PrimExpr;
}

export interface IterSplit {
  readonly kind: "IterSplit";
  readonly source: IterMark;
  readonly lowerFactor: PrimExpr;
  readonly extent: PrimExpr;
  readonly scale: PrimExpr;
}

export interface IterSum {
  readonly kind: "IterSum";
  readonly args: readonly IterSplit[];
  readonly base: PrimExpr;
}

/** The value of a constant field; detection never builds a symbolic one. */
export function constValue(e: PrimExpr, what: string): number {
  if (e.kind !== "IntImm") throw new IRError(`iter map: ${what} must be a constant integer`);
  return e.value;
}

export const markExtent = (m: IterMark): number => constValue(m.extent, "mark extent");
export const splitLower = (s: IterSplit): number => constValue(s.lowerFactor, "split lower factor");
export const splitExtent = (s: IterSplit): number => constValue(s.extent, "split extent");
export const splitScale = (s: IterSplit): number => constValue(s.scale, "split scale");
export const sumBase = (s: IterSum): number => constValue(s.base, "sum base");

export function iterMark(source: PrimExpr | IterSum, extent: number, dtype: string): IterMark {
  return { kind: "IterMark", source, extent: intImm(extent, dtype) };
}

export function iterSplit(source: IterMark, lowerFactor: number, extent: number, scale: number): IterSplit {
  const dt = source.extent.dtype;
  return {
    kind: "IterSplit",
    source,
    lowerFactor: intImm(lowerFactor, dt),
    extent: intImm(extent, dt),
    scale: intImm(scale, dt),
  };
}

export function iterSum(args: readonly IterSplit[], base: number, dtype: string): IterSum {
  return { kind: "IterSum", args, base: intImm(base, dtype) };
}

export function isIterSum(x: PrimExpr | IterSum): x is IterSum {
  return x.kind === "IterSum";
}

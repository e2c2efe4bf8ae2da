/**
 * Casts pushed into canonical forms (TVM's CanPushCastToChildren / PushCastToChildren):
 * `cast(T, a + b)` is `cast(T, a) + cast(T, b)` when T is at least as wide, or when every
 * partial result, built in TVM's order, provably fits in T.
 */
import { type DType, dtypeInfo, intRange } from "../../dtype.js";
import { type PrimExpr, cast, intImm } from "../../expr.js";
import { foldCastConstant } from "../constFold.js";
import type { IntBound } from "../intBound.js";
import { foldingBinary } from "../tvm-rewrite/folding.js";
import { isIndexType, isUintIndexType } from "../tvm-rewrite/rewriter.js";
import { uintAsIndexAllowed } from "../uint-as-index.js";
import { type SplitTerm, type SumForm, sumOf, withSplit } from "./forms.js";
import { constOf, divOp, modOp, splitToExpr } from "./normalize.js";

type BoundOf = (e: PrimExpr) => IntBound;

function bitsOf(dt: DType): number {
  return dtypeInfo(dt).bits;
}

/** TVM's CastIsSafe: `value` converts to the index type `dt` without changing. */
export function castIsSafe(dt: DType, value: PrimExpr, bound: BoundOf): boolean {
  if (!isIndexType(dt) && !(isUintIndexType(dt) && uintAsIndexAllowed())) return false;
  if (bitsOf(value.dtype) <= bitsOf(dt)) return true;
  const b = bound(value);
  const r = intRange(dt);
  return b.max <= r.max && b.min >= r.min;
}

export function canPushCastIntoSplit(t: SplitTerm, dt: DType, bound: BoundOf): boolean {
  if (bitsOf(dt) >= bitsOf(t.dtype) || t.scale === 0) return true;
  let res = t.index;
  if (!castIsSafe(dt, res, bound)) return false;
  if (t.upper !== Infinity) {
    res = foldingBinary(modOp(t.mode), res, constOf(t.upper, t.dtype));
    if (!castIsSafe(dt, res, bound)) return false;
  }
  if (t.lower !== 1) {
    res = foldingBinary(divOp(t.mode), res, constOf(t.lower, t.dtype));
    if (!castIsSafe(dt, res, bound)) return false;
  }
  if (t.scale !== 1) {
    res = foldingBinary("mul", res, constOf(t.scale, t.dtype));
    if (!castIsSafe(dt, res, bound)) return false;
  }
  return true;
}

export function canPushCastIntoSum(s: SumForm, dt: DType, bound: BoundOf): boolean {
  if (bitsOf(dt) >= bitsOf(s.dtype)) return true;
  const minValue = s.base === intRange(dt).min;
  // Partial sums are built in the source type, as the values they check.
  let res: PrimExpr = intImm(0, s.dtype);
  const step = (op: "add" | "sub", x: PrimExpr): boolean => {
    res = foldingBinary(op, res, x);
    return castIsSafe(dt, res, bound);
  };
  for (const t of s.terms) if (t.scale > 0 && !step("add", splitToExpr(t))) return false;
  if ((s.base > 0 || minValue) && !step("add", constOf(s.base, s.dtype))) return false;
  for (const t of s.terms) if (t.scale < 0 && !step("sub", splitToExpr(t, -1))) return false;
  if (s.base < 0 && !minValue && !step("sub", constOf(-s.base, s.dtype))) return false;
  return s.terms.every((t) => canPushCastIntoSplit(t, dt, bound));
}

export function pushCastIntoSplit(t: SplitTerm, dt: DType): SplitTerm {
  return withSplit(t, { dtype: dt, index: foldCastConstant(dt, t.index) ?? cast(dt, t.index) });
}

export function pushCastIntoSum(s: SumForm, dt: DType): SumForm {
  return sumOf(
    dt,
    s.terms.map((t) => pushCastIntoSplit(t, dt)),
    s.base,
  );
}

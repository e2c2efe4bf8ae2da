/**
 * Constant bounds of integer index expressions, from the constant ranges of the loop and block
 * variables in scope. Used to drop bounds checks that can never fail (e.g. `C[vi, vj]` inside
 * loops over exactly the buffer's extents), so checks cost only where indices are data-dependent.
 */
import { dtypeInfo } from "../dtype.js";
import type { PrimExpr, Var } from "../expr.js";

export interface IntRange {
  readonly lo: number;
  readonly hi: number;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The inclusive range of `e`, when provable from `ranges`; undefined otherwise. */
export function indexRange(e: PrimExpr, ranges: (v: Var) => IntRange | undefined): IntRange | undefined {
  const r = rangeUnchecked(e, ranges);
  // Results outside int32 might have wrapped in 32-bit arithmetic: no claim then.
  if (r === undefined || r.lo < INT32_MIN || r.hi > INT32_MAX) return undefined;
  if (dtypeInfo(e.dtype).lanes !== 1) return undefined;
  return r;
}

function rangeUnchecked(e: PrimExpr, ranges: (v: Var) => IntRange | undefined): IntRange | undefined {
  switch (e.kind) {
    case "IntImm":
      return { lo: e.value, hi: e.value };
    case "Var":
      return ranges(e);
    case "Binary": {
      const a = indexRange(e.a, ranges);
      const b = indexRange(e.b, ranges);
      if (a === undefined || b === undefined) return undefined;
      switch (e.op) {
        case "add":
          return { lo: a.lo + b.lo, hi: a.hi + b.hi };
        case "sub":
          return { lo: a.lo - b.hi, hi: a.hi - b.lo };
        case "mul": {
          const products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
          return { lo: Math.min(...products), hi: Math.max(...products) };
        }
        case "floordiv":
          if (b.lo !== b.hi || b.lo <= 0) return undefined;
          return { lo: Math.floor(a.lo / b.lo), hi: Math.floor(a.hi / b.lo) };
        case "floormod":
          if (b.lo !== b.hi || b.lo <= 0) return undefined;
          return { lo: 0, hi: b.lo - 1 };
        case "min":
          return { lo: Math.min(a.lo, b.lo), hi: Math.min(a.hi, b.hi) };
        case "max":
          return { lo: Math.max(a.lo, b.lo), hi: Math.max(a.hi, b.hi) };
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

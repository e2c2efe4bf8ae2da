/**
 * Canonical forms back to expressions, in TVM's order: positive terms by descending scale, a
 * positive base, then the negative terms and a negative base subtracted (`y * 2 + 1 - x * 2`,
 * `0 - x` when nothing is positive). Built with folding constructors, as TVM's operators fold.
 */
import { type DType, intRange } from "../../dtype.js";
import { type PrimExpr, intImm } from "../../expr.js";
import { foldingBinary } from "../tvm-rewrite/folding.js";
import { type Canonical, CanonicalOverflow, type DivMode, type SplitTerm, type SumForm, isForm, mergeSplitTerms } from "./forms.js";

/** An integer constant of `dt`; a value outside the dtype's range is an overflow (TVM refuses it too). */
export function constOf(value: number, dt: DType): PrimExpr {
  const r = intRange(dt);
  if (value < r.min || value > r.max) throw new CanonicalOverflow();
  return intImm(value, dt);
}

export function divOp(mode: DivMode): "div" | "floordiv" {
  return mode === "trunc" ? "div" : "floordiv";
}

export function modOp(mode: DivMode): "mod" | "floormod" {
  return mode === "trunc" ? "mod" : "floormod";
}

/** `(index % upper) / lower * (scale * extra)`. */
export function splitToExpr(t: SplitTerm, extra = 1): PrimExpr {
  if (t.scale === 0) return intImm(0, t.dtype);
  let res = t.index;
  if (t.upper !== Infinity) res = foldingBinary(modOp(t.mode), res, constOf(t.upper, t.dtype));
  if (t.lower !== 1) res = foldingBinary(divOp(t.mode), res, constOf(t.lower, t.dtype));
  const scale = t.scale * extra;
  if (scale !== 1) res = foldingBinary("mul", res, constOf(scale, t.dtype));
  return res;
}

function isMinValue(base: number, dt: DType): boolean {
  return base === intRange(dt).min;
}

export function sumToExpr(s: SumForm): PrimExpr {
  if (s.terms.length === 0) return constOf(s.base, s.dtype);
  const terms = mergeSplitTerms(s.terms);
  const minValue = isMinValue(s.base, s.dtype);
  let res: PrimExpr = intImm(0, s.dtype);
  for (const t of terms) if (t.scale > 0) res = foldingBinary("add", res, splitToExpr(t));
  if (s.base > 0 || minValue) res = foldingBinary("add", res, constOf(s.base, s.dtype));
  for (const t of terms) if (t.scale < 0) res = foldingBinary("sub", res, splitToExpr(t, -1));
  if (s.base < 0 && !minValue) res = foldingBinary("sub", res, constOf(-s.base, s.dtype));
  return res;
}

/** The expression a visitor result stands for. */
export function normalize(c: Canonical): PrimExpr {
  if (!isForm(c)) return c;
  return c.kind === "Split" ? splitToExpr(c) : sumToExpr(c);
}

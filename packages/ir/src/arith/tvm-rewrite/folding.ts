/**
 * TVM's operator constructors, which fold as they build (arith::TryConstFold): two constants
 * fold, and `x + 0`, `x * 1`, `0 * x`, `x // 1`, `x % 1`, `true && x`, … reduce. Rewrite results
 * and the expressions of TVM's tests are built this way, so forms compare equal to TVM's.
 */
import { dtypeInfo } from "../../dtype.js";
import { type BinaryOp, type PrimExpr, binary, boolImm, intImm, matchTypes, not } from "../../expr.js";
import { foldBinaryConstants } from "../constFold.js";

const COMPARISONS: ReadonlySet<BinaryOp> = new Set<BinaryOp>(["eq", "ne", "lt", "le", "gt", "ge"]);

function isScalarConst(e: PrimExpr, value: number): boolean {
  return (e.kind === "IntImm" || e.kind === "FloatImm") && e.value === value && dtypeInfo(e.dtype).lanes === 1;
}

/** A float constant zero times (or over) a finite non-negative constant is that zero; TVM folds
 * `0.0 * x` for any x, which NaN and infinities contradict, so only constants are folded here. */
function isFloatZeroBy(zero: PrimExpr, other: PrimExpr, allowZero: boolean): boolean {
  return (
    zero.kind === "FloatImm" &&
    zero.value === 0 &&
    other.kind === "FloatImm" &&
    Number.isFinite(other.value) &&
    (other.value > 0 || (allowZero && Object.is(other.value, 0)))
  );
}

export function foldingBinary(op: BinaryOp, aLike: PrimExpr | number, bLike: PrimExpr | number): PrimExpr {
  const [a, b] = matchTypes(aLike, bLike, op);
  const folded = foldBinaryConstants(op, a, b, COMPARISONS.has(op) ? "bool" : a.dtype);
  if (folded !== undefined) return folded;
  switch (op) {
    case "add":
      if (isScalarConst(a, 0)) return b;
      if (isScalarConst(b, 0)) return a;
      break;
    case "sub":
      if (isScalarConst(b, 0)) return a;
      break;
    case "mul":
      if (isScalarConst(a, 1)) return b;
      if (isScalarConst(b, 1)) return a;
      if (a.kind === "IntImm" && a.value === 0) return a;
      if (b.kind === "IntImm" && b.value === 0) return b;
      if (isFloatZeroBy(a, b, true)) return a;
      if (isFloatZeroBy(b, a, true)) return b;
      break;
    case "div":
    case "floordiv":
      if (a.kind === "IntImm" && a.value === 0) return a;
      if (op === "div" && isFloatZeroBy(a, b, false)) return a;
      if (isScalarConst(b, 1)) return a;
      break;
    case "mod":
    case "floormod":
      if (a.kind === "IntImm" && a.value === 0) return a;
      if (b.kind === "IntImm" && b.value === 1) return intImm(0, a.dtype);
      break;
    case "and":
      if (a.kind === "IntImm") return a.value !== 0 ? b : a;
      if (b.kind === "IntImm") return b.value !== 0 ? a : b;
      break;
    case "or":
      if (a.kind === "IntImm") return a.value !== 0 ? a : b;
      if (b.kind === "IntImm") return b.value !== 0 ? b : a;
      break;
  }
  return binary(op, a, b);
}

export function foldingNot(a: PrimExpr): PrimExpr {
  return a.kind === "IntImm" ? boolImm(a.value === 0) : not(a);
}

/**
 * Untyped literals. A bare `0.0` or `1` in TVMScript has no dtype until it meets a typed operand
 * or a buffer (`C[i] = 0.0` with a float16 `C` stores a float16 zero), so the evaluator carries
 * it as a `Literal` and converts it at the point where the dtype becomes known.
 */
import { type DType, elementType, isFloat, isIntegral } from "../dtype.js";
import { type PrimExpr, boolImm, floatImm, intImm, toExpr } from "../expr.js";

export interface Literal {
  readonly kind: "Literal";
  readonly value: number;
  readonly type: "int" | "float" | "bool";
}

/** A value an expression evaluates to: a typed expression or a literal awaiting its dtype. */
export type ExprValue = PrimExpr | Literal;

export function literal(value: number, type: Literal["type"]): Literal {
  return { kind: "Literal", value, type };
}

export function isLiteral(v: ExprValue): v is Literal {
  return v.kind === "Literal";
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * The literal as an expression. With a hint, an integer literal takes the hint's dtype (so `x + 1`
 * with int64 `x` adds an int64 one) and a float literal takes a float hint's dtype; a float literal
 * next to an integer stays float32, as in TVM.
 */
export function literalToExpr(lit: Literal, hint?: DType): PrimExpr {
  if (lit.type === "bool") return boolImm(lit.value !== 0);
  if (hint !== undefined) {
    const h = elementType(hint);
    if (isFloat(h) || (lit.type === "int" && isIntegral(h))) return toExpr(lit.value, hint);
  }
  if (lit.type === "float") return floatImm(lit.value, "float32");
  return intImm(lit.value, lit.value < INT32_MIN || lit.value > INT32_MAX ? "int64" : "int32");
}

export function valueToExpr(v: ExprValue, hint?: DType): PrimExpr {
  return isLiteral(v) ? literalToExpr(v, hint) : v;
}

/** Converts two operands, letting a literal take the other side's dtype. */
export function valuesToExprs(a: ExprValue, b: ExprValue): [PrimExpr, PrimExpr] {
  if (isLiteral(a) && !isLiteral(b)) return [literalToExpr(a, b.dtype), b];
  if (!isLiteral(a) && isLiteral(b)) return [a, literalToExpr(b, a.dtype)];
  return [valueToExpr(a), valueToExpr(b)];
}

/** `te.all` / `te.any`: conjunction and disjunction of any number of conditions. */
import { isBool } from "../dtype.js";
import { IRError } from "../errors.js";
import { type ExprLike, type PrimExpr, and, or, toExpr } from "../expr.js";

function fold(what: string, conds: readonly ExprLike[], op: (a: PrimExpr, b: PrimExpr) => PrimExpr): PrimExpr {
  if (conds.length === 0) throw new IRError(`te.${what}: at least one condition is required`);
  const exprs = conds.map((c, i) => {
    const e = toExpr(c);
    if (!isBool(e.dtype)) throw new IRError(`te.${what}: condition ${i} must be bool, got ${e.dtype}`);
    return e;
  });
  return exprs.slice(1).reduce(op, exprs[0]!);
}

/** True when every condition holds. */
export const allOf = (...conds: ExprLike[]): PrimExpr => fold("all", conds, and);
/** True when at least one condition holds. */
export const anyOf = (...conds: ExprLike[]): PrimExpr => fold("any", conds, or);

/** Small helpers on boolean conditions. */
import { type PrimExpr, type Stmt, and, boolImm, ge, gt, ifThenElseStmt, le, lt, not } from "@tessera/ir";

/** The conjuncts of `a && b && …` (a single condition is its own conjunct). */
export function conjuncts(cond: PrimExpr): PrimExpr[] {
  if (cond.kind === "Binary" && cond.op === "and") return [...conjuncts(cond.a), ...conjuncts(cond.b)];
  return [cond];
}

const NEGATED_COMPARISON = { lt: ge, le: gt, gt: le, ge: lt } as const;

/**
 * The conjuncts of `!cond`, with the negation pushed inward (De Morgan, flipped comparisons) so
 * that an `else` arm's facts read as bounds: `!(i < 112 || j < 112)` is `[i >= 112, j >= 112]`.
 */
export function negatedConjuncts(cond: PrimExpr): PrimExpr[] {
  if (cond.kind === "Binary" && cond.op === "or") return [...negatedConjuncts(cond.a), ...negatedConjuncts(cond.b)];
  if (cond.kind === "Not") return facts(cond.a);
  if (cond.kind === "Binary" && cond.op in NEGATED_COMPARISON) {
    return [NEGATED_COMPARISON[cond.op as keyof typeof NEGATED_COMPARISON](cond.a, cond.b)];
  }
  return [not(cond)];
}

/** The conjuncts of `cond` with negations pushed inward (see negatedConjuncts) and `T.likely` hints dropped. */
export function facts(cond: PrimExpr): PrimExpr[] {
  if (cond.kind === "Binary" && cond.op === "and") return [...facts(cond.a), ...facts(cond.b)];
  if (cond.kind === "Call" && cond.op === "likely" && cond.args.length === 1) return facts(cond.args[0]!);
  if (cond.kind === "Not") return negatedConjuncts(cond.a);
  return [cond];
}

/** `c0 && c1 && …`, or `True` for none. */
export function allOf(conds: readonly PrimExpr[]): PrimExpr {
  if (conds.length === 0) return boolImm(true);
  return conds.reduce((acc, c) => and(acc, c));
}

export function isConstTrue(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.value !== 0;
}

/** `body`, under `if predicate` unless the predicate is always true. */
export function guarded(predicate: PrimExpr, body: Stmt): Stmt {
  return isConstTrue(predicate) ? body : ifThenElseStmt(predicate, body);
}

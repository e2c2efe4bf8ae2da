/** Small helpers on boolean conditions. */
import { type PrimExpr, type Stmt, and, boolImm, ifThenElseStmt } from "@tessera/ir";

/** The conjuncts of `a && b && …` (a single condition is its own conjunct). */
export function conjuncts(cond: PrimExpr): PrimExpr[] {
  if (cond.kind === "Binary" && cond.op === "and") return [...conjuncts(cond.a), ...conjuncts(cond.b)];
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

/**
 * Simplifying a Let: constants and variables are free to duplicate, so a Let binding one is
 * inlined into its body (both simplifiers do this).
 */
import type { Let, PrimExpr } from "../expr.js";
import { substitute } from "../functor.js";

export function simplifyLet(e: Let, simplify: (x: PrimExpr) => PrimExpr): PrimExpr {
  const value = simplify(e.value);
  if (value.kind === "IntImm" || value.kind === "FloatImm" || value.kind === "Var") {
    return simplify(substitute(e.body, (v) => (v === e.variable ? value : undefined)));
  }
  return { ...e, value, body: simplify(e.body) };
}

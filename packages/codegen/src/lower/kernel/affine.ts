/** How an index expression moves with a loop variable. */
import { type PrimExpr, type Var, linearFormOf, simplify, usesVar } from "@tessera/ir";

/**
 * The constant stride of `e` in `v` (0 when `e` does not use `v`), or undefined when `e` is not
 * affine in `v` (e.g. `v // 4`, `v * v`, a load indexed by `v`).
 */
export function strideIn(e: PrimExpr, v: Var): number | undefined {
  if (!usesVar(e, (x) => x === v)) return 0;
  const form = linearFormOf(simplify(e));
  let stride: number | undefined;
  for (const term of form.terms) {
    if (term.atom === v) stride = term.coef;
    else if (usesVar(term.atom, (x) => x === v)) return undefined;
  }
  return stride ?? 0;
}

/**
 * TVM's `IsAffineBinding` (schedule analysis), on top of `detectIterMap` (a surjective iterator
 * map of the loops): two more conditions than the map itself.
 *
 * - Each binding's leading iterator has scale 1: `vl = l * 16` is not affine (it skips values).
 * - A predicate that bounds a fused iterator (`i * 32 + j < 100`) must be matched by a binding
 *   that uses it: when every loop of the bound is bound by a different binding, the predicate
 *   bounds nothing the bindings express, and the binding is not affine (TVM's "forbidden
 *   predicate unmatch"). TVM also rejects a binding that takes only the lowest part of such a
 *   fused iterator; we accept those (see docs/architecture/schedule.md).
 */
import { type PrimExpr, type Range, type Var, detectIterMap, forEachExpr } from "@tessera/ir";

export function isTVMAffineBinding(bindings: readonly PrimExpr[], domains: ReadonlyMap<Var, Range>, predicate?: PrimExpr): boolean {
  if (domains.size === 0) return true;
  const map = detectIterMap(bindings, domains, predicate);
  if (map.errors.length > 0) return false;
  const unitScale = map.indices.every((sum) => {
    const lead = sum.args[0];
    return lead === undefined || (lead.scale.kind === "IntImm" && lead.scale.value === 1);
  });
  return unitScale && predicateMatched(bindings, domains, predicate);
}

/**
 * Whether each fused bound of `predicate` (a conjunct over two or more loops) is matched by a
 * binding that uses two or more of its loops together.
 */
export function predicateMatched(bindings: readonly PrimExpr[], domains: ReadonlyMap<Var, Range>, predicate?: PrimExpr): boolean {
  if (predicate === undefined) return true;
  const loopVarsOf = (e: PrimExpr): Set<Var> => {
    const vars = new Set<Var>();
    forEachExpr(e, (x) => void (x.kind === "Var" && domains.has(x) && vars.add(x)));
    return vars;
  };
  const bindingVars = bindings.map(loopVarsOf);
  return conjuncts(predicate).every((c) => {
    const vars = loopVarsOf(c);
    return vars.size < 2 || bindingVars.some((bv) => [...vars].filter((v) => bv.has(v)).length >= 2);
  });
}

function conjuncts(p: PrimExpr): PrimExpr[] {
  return p.kind === "Binary" && p.op === "and" ? [...conjuncts(p.a), ...conjuncts(p.b)] : [p];
}

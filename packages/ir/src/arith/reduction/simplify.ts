/**
 * TVM's canonical simplification of a `Reduce` (canonical_simplify.cc, SimplifyReduceCombiner):
 * the axes are bound to their domains, the sources, init values and condition simplified; a
 * reduction over no axes becomes its single step (`select(cond, combine(init, src), init)`, or
 * `select(cond, src, identity)`); otherwise the combiner's results and identities are simplified
 * and only the components the value depends on are kept (and those with side effects).
 */
import type { PrimExpr, Var } from "../../expr.js";
import { select } from "../../expr.js";
import { IRVisitor, usesVar } from "../../functor.js";
import { intrinsicInfo } from "../../intrinsics.js";
import type { Range } from "../../stmt.js";
import { type Reduction, applyCombiner, reduction } from "./form.js";

/** What the simplification needs of the analyzer. */
export interface ReductionSimplifier {
  bind(v: Var, r: Range, allowOverride?: boolean): void;
  canonicalSimplify(e: PrimExpr): PrimExpr;
}

export function canonicalSimplifyReduction(an: ReductionSimplifier, r: Reduction): PrimExpr | Reduction {
  const simplify = (e: PrimExpr) => an.canonicalSimplify(e);
  const axes = r.axes.map((ax) => ({ var: ax.var, dom: { min: simplify(ax.dom.min), extent: simplify(ax.dom.extent) } }));
  for (const ax of axes) an.bind(ax.var, ax.dom, true);
  const source = r.source.map(simplify);
  const init = r.init.map(simplify);
  const condition = simplify(r.condition);
  const k = r.valueIndex;
  if (axes.length === 0) {
    if (init.length > 0) return simplify(select(condition, applyCombiner(r.combiner, init, source)[k]!, init[k]!));
    // As TVM: the identity is assumed to be one, so the single step is the source itself.
    return simplify(select(condition, source[k]!, r.combiner.identity[k]!));
  }
  const result = r.combiner.result.map(simplify);
  const used = usedComponents(r, result, source, init);
  const keep = (_: unknown, i: number) => used[i]!;
  return reduction({
    combiner: {
      lhs: r.combiner.lhs.filter(keep),
      rhs: r.combiner.rhs.filter(keep),
      result: result.filter(keep),
      identity: r.combiner.identity.filter(keep).map(simplify),
    },
    source: source.filter(keep),
    axes,
    condition,
    valueIndex: used.slice(0, k).filter((u) => u).length,
    init: init.filter(keep),
  });
}

/** Components the value depends on through the combiner, and those whose expressions have side effects. */
function usedComponents(r: Reduction, result: readonly PrimExpr[], source: readonly PrimExpr[], init: readonly PrimExpr[]): boolean[] {
  const used = result.map(() => false);
  const mark = (idx: number): void => {
    if (used[idx]) return;
    used[idx] = true;
    for (let i = 0; i < result.length; i++) {
      const lhs = r.combiner.lhs[i]!;
      const rhs = r.combiner.rhs[i]!;
      if (!used[i] && usesVar(result[idx]!, (v) => v === lhs || v === rhs)) mark(i);
    }
  };
  mark(r.valueIndex);
  for (let i = 0; i < result.length; i++) {
    const exprs = [source[i]!, r.combiner.identity[i]!, result[i]!, ...(init.length > 0 ? [init[i]!] : [])];
    if (exprs.some(hasSideEffect)) mark(i);
  }
  return used;
}

/** A call of anything but a pure intrinsic may have effects beyond reading state (TVM's SideEffect > kReadState). */
export function hasSideEffect(e: PrimExpr): boolean {
  let found = false;
  class Finder extends IRVisitor {
    override visitExpr(node: PrimExpr): void {
      if (found) return;
      if (node.kind === "Call" && intrinsicInfo(node.op)?.pure !== true) {
        found = true;
        return;
      }
      super.visitExpr(node);
    }
  }
  new Finder().visitExpr(e);
  return found;
}

/**
 * TVM's `ProofStrength.SYMBOLIC_BOUND` step of `can_prove`: a comparison `a < b` (`<=`, `>`,
 * `>=`) holds when the lower end of the interval of `b - a`, with every variable bound to a range
 * relaxed over it (symbolic ends included), is provably at least 1 (0 for `<=`, `>=`).
 */
import type { PrimExpr, Var } from "../expr.js";
import { sub } from "../expr.js";
import type { Range } from "../stmt.js";
import type { Analyzer } from "./analyzer.js";
import { type IntervalSet, evalSet, intervalFromRange } from "./intervalSet.js";

/** `b - a` and the least value it must reach for the comparison to hold. */
function positiveDifference(cond: PrimExpr): { diff: PrimExpr; atLeast: number } | undefined {
  if (cond.kind !== "Binary") return undefined;
  switch (cond.op) {
    case "lt":
      return { diff: sub(cond.b, cond.a), atLeast: 1 };
    case "le":
      return { diff: sub(cond.b, cond.a), atLeast: 0 };
    case "gt":
      return { diff: sub(cond.a, cond.b), atLeast: 1 };
    case "ge":
      return { diff: sub(cond.a, cond.b), atLeast: 0 };
    default:
      return undefined;
  }
}

export function proveBySymbolicBound(cond: PrimExpr, ranges: ReadonlyMap<Var, Range>, analyzer: Analyzer): boolean {
  const p = positiveDifference(cond);
  if (p === undefined) return false;
  const dom = new Map<Var, IntervalSet>();
  for (const [v, r] of ranges) dom.set(v, intervalFromRange(r, analyzer));
  const set = evalSet(analyzer.tvmSimplify(p.diff), dom, analyzer);
  if (set.min.kind === "NegInf") return false;
  return analyzer.constIntBound(analyzer.tvmSimplify(set.min)).min >= p.atLeast;
}

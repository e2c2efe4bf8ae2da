/**
 * Conditions known to hold where an expression is evaluated (inside `if c`, in `b` of `a && b`)
 * and what they prove about the comparisons of that expression. An integer comparison is kept
 * as `e <= 0`; a condition `c` is proven when, for some known `f <= 0`, the analyzer proves
 * `e_c - f <= 0` under the loop bounds (`n < m + 5` proves `n < m + 10`, `i == 5` proves `i < 7`).
 * With `transitive` set, two facts may combine (`i < j` and `j < k` prove `i < k`): TVM's
 * `transitively_prove_inequalities`. Conditions that are not integer comparisons are known
 * structurally: the same condition is true, its negation false. A condition that reads a buffer
 * (or calls an impure intrinsic) is not kept: a store may change what it reads.
 */
import { type Analyzer, type PrimExpr, add, dtypeInfo, forEachExpr, intImm, le, not, sameExprStructure, sub } from "@tessera/ir";
import { conjuncts } from "./conditions.js";
import { isPure } from "./no-op.js";
import { decideByRemainder } from "./remainder-facts.js";

export interface KnownFacts {
  /** Each `e` stands for `e <= 0`. */
  readonly bounds: readonly PrimExpr[];
  /** Conditions known true as they are (for structural matches). */
  readonly conditions: readonly PrimExpr[];
}

export const NO_FACTS: KnownFacts = { bounds: [], conditions: [] };

const isIntegerScalar = (e: PrimExpr): boolean => {
  const info = dtypeInfo(e.dtype);
  return info.lanes === 1 && (info.code === "int" || info.code === "uint");
};

/** `cond` as `e <= 0` facts (two for an equality), or none when it is not an integer comparison. */
function asBounds(cond: PrimExpr): PrimExpr[] {
  if (cond.kind === "Not") return asBounds(negate(cond.a) ?? cond);
  if (cond.kind !== "Binary" || !isIntegerScalar(cond.a) || cond.a.dtype !== cond.b.dtype) return [];
  const { a, b } = cond;
  const one = intImm(1, a.dtype);
  switch (cond.op) {
    case "lt":
      return [add(sub(a, b), one)];
    case "le":
      return [sub(a, b)];
    case "gt":
      return [add(sub(b, a), one)];
    case "ge":
      return [sub(b, a)];
    case "eq":
      return [sub(a, b), sub(b, a)];
    default:
      return [];
  }
}

/** The comparison that negates `cond`, when it is one. */
function negate(cond: PrimExpr): PrimExpr | undefined {
  if (cond.kind !== "Binary") return undefined;
  const flipped: Partial<Record<string, "lt" | "le" | "gt" | "ge" | "eq" | "ne">> = { lt: "ge", le: "gt", gt: "le", ge: "lt", eq: "ne", ne: "eq" };
  const op = flipped[cond.op];
  return op === undefined ? undefined : { ...cond, op };
}

/** Whether `cond` keeps its value while it is known: it reads no buffer and calls nothing impure. */
export function isStable(cond: PrimExpr): boolean {
  let stable = isPure(cond);
  if (stable)
    forEachExpr(cond, (x) => {
      if (x.kind === "BufferLoad") stable = false;
    });
  return stable;
}

/** `facts` and `cond` (its conjuncts, when it holds). */
export function withCondition(facts: KnownFacts, cond: PrimExpr): KnownFacts {
  if (cond.kind === "Not") return withNegation(facts, cond.a);
  const parts = conjuncts(cond).filter(isStable);
  if (parts.length === 0) return facts;
  return { bounds: [...facts.bounds, ...parts.flatMap(asBounds)], conditions: [...facts.conditions, ...parts] };
}

/** `facts` and the negation of `cond` (known in an else branch, or in `b` of `a || b`). */
export function withNegation(facts: KnownFacts, cond: PrimExpr): KnownFacts {
  if (!isStable(cond)) return facts;
  if (cond.kind === "Not") return withCondition(facts, cond.a);
  if (cond.kind === "Binary" && cond.op === "or") return withNegation(withNegation(facts, cond.a), cond.b);
  const negated = negate(cond);
  if (negated !== undefined) return withCondition(facts, negated);
  return { bounds: facts.bounds, conditions: [...facts.conditions, not(cond)] };
}

export class FactProver {
  constructor(
    private readonly analyzer: Analyzer,
    private readonly transitive: boolean,
  ) {}

  /** True or false when the facts decide `cond`, undefined otherwise. */
  decide(cond: PrimExpr, facts: KnownFacts): boolean | undefined {
    if (facts.conditions.some((c) => sameExprStructure(c, cond))) return true;
    if (facts.conditions.some((c) => c.kind === "Not" && sameExprStructure(c.a, cond))) return false;
    if (cond.kind === "Not" && facts.conditions.some((c) => sameExprStructure(c, cond.a))) return false;
    const opposite = negate(cond);
    if (opposite !== undefined && facts.conditions.some((c) => sameExprStructure(c, opposite))) return false;
    const byRemainder = decideByRemainder(cond, facts.conditions);
    if (byRemainder !== undefined) return byRemainder;
    if (facts.bounds.length === 0 || cond.kind !== "Binary") return undefined;
    if (cond.op === "ne") {
      const eq = this.decide({ ...cond, op: "eq" }, facts);
      return eq === undefined ? undefined : !eq;
    }
    const claim = asBounds(cond);
    if (claim.length > 0 && claim.every((e) => this.proves(e, facts))) return true;
    const negated = negate(cond);
    if (negated === undefined) return undefined;
    if (cond.op === "eq") {
      const lt = { ...cond, op: "lt" as const };
      const gt = { ...cond, op: "gt" as const };
      return this.proves(asBounds(lt)[0]!, facts) || this.proves(asBounds(gt)[0]!, facts) ? false : undefined;
    }
    const against = asBounds(negated);
    return against.length > 0 && against.every((e) => this.proves(e, facts)) ? false : undefined;
  }

  /** Whether the facts prove `e <= 0`. */
  private proves(e: PrimExpr, facts: KnownFacts): boolean {
    const zero = intImm(0, e.dtype);
    for (const f of facts.bounds) {
      if (f.dtype === e.dtype && this.analyzer.canProve(le(sub(e, f), zero))) return true;
    }
    if (!this.transitive) return false;
    for (const f of facts.bounds) {
      for (const g of facts.bounds) {
        if (f !== g && f.dtype === e.dtype && g.dtype === e.dtype && this.analyzer.canProve(le(sub(sub(e, f), g), zero))) return true;
      }
    }
    return false;
  }
}

/**
 * Rewrites the conditions of an expression that known facts decide into constants: comparisons
 * and negations anywhere in it, `if_then_else` / `Select` arms under their condition, and (when
 * asked) each side of `&&` / `||` knowing the other (util/known-facts.ts says what a fact proves).
 */
import { type Analyzer, type Binary, IRMutator, type PrimExpr, boolImm, forEachExpr } from "@tessera/ir";
import { FactProver, type KnownFacts, withCondition, withNegation } from "./known-facts.js";

const COMPARISONS = new Set(["eq", "ne", "lt", "le", "gt", "ge"]);

export class FactApplier {
  private readonly prover: FactProver;

  constructor(
    analyzer: Analyzer,
    transitive: boolean,
    private readonly booleanBranches: boolean,
  ) {
    this.prover = new FactProver(analyzer, transitive);
  }

  /** Whether `apply` may change `e`: there are facts, or conditions that give some. */
  mayApply(e: PrimExpr, facts: KnownFacts): boolean {
    if (facts.bounds.length > 0 || facts.conditions.length > 0) return true;
    let conditional = false;
    forEachExpr(e, (x) => {
      if (x.kind === "Select" || (x.kind === "Call" && x.op === "if_then_else")) conditional = true;
      if (this.booleanBranches && x.kind === "Binary" && (x.op === "and" || x.op === "or")) conditional = true;
    });
    return conditional;
  }

  apply(e: PrimExpr, facts: KnownFacts): PrimExpr {
    return new Rewriter(this.prover, facts, this.booleanBranches).visitExpr(e);
  }
}

class Rewriter extends IRMutator {
  constructor(
    private readonly prover: FactProver,
    private facts: KnownFacts,
    private readonly booleanBranches: boolean,
  ) {
    super();
  }

  private under<T>(facts: KnownFacts, f: () => T): T {
    const outer = this.facts;
    this.facts = facts;
    try {
      return f();
    } finally {
      this.facts = outer;
    }
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "Binary" && COMPARISONS.has(e.op)) return this.decided(e) ?? super.visitExpr(e);
    if (e.kind === "Not") return this.decided(e) ?? super.visitExpr(e);
    if (e.kind === "Binary" && (e.op === "and" || e.op === "or")) {
      const known = this.decided(e);
      if (known !== undefined) return known;
      if (this.booleanBranches) return this.logical(e);
    }
    if (e.kind === "Select") {
      const condition = this.visitExpr(e.condition);
      const t = this.under(withCondition(this.facts, condition), () => this.visitExpr(e.trueValue));
      const f = this.under(withNegation(this.facts, condition), () => this.visitExpr(e.falseValue));
      return condition === e.condition && t === e.trueValue && f === e.falseValue ? e : { ...e, condition, trueValue: t, falseValue: f };
    }
    if (e.kind === "Call" && e.op === "if_then_else" && e.args.length === 3) {
      const [c, tv, fv] = e.args as [PrimExpr, PrimExpr, PrimExpr];
      const condition = this.visitExpr(c);
      const t = this.under(withCondition(this.facts, condition), () => this.visitExpr(tv));
      const f = this.under(withNegation(this.facts, condition), () => this.visitExpr(fv));
      return condition === c && t === tv && f === fv ? e : { ...e, args: [condition, t, f] };
    }
    return super.visitExpr(e);
  }

  private decided(e: PrimExpr): PrimExpr | undefined {
    const known = this.prover.decide(e, this.facts);
    return known === undefined ? undefined : { ...boolImm(known), dtype: e.dtype };
  }

  /** `b` knowing `a` (or its negation for `||`), then `a` knowing the new `b`. */
  private logical(e: Binary): PrimExpr {
    const given = e.op === "and" ? withCondition : withNegation;
    const b = this.under(given(this.facts, e.a), () => this.visitExpr(e.b));
    const a = this.under(given(this.facts, b), () => this.visitExpr(e.a));
    return a === e.a && b === e.b ? e : { ...e, a, b };
  }
}

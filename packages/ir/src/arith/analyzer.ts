/**
 * `Analyzer`: the facts known about variables (bounds from ranges, substitutions from bound
 * expressions) and the questions asked under them (bounds, proofs, simplification).
 */
import { IRError } from "../errors.js";
import { type ExprLike, type PrimExpr, type Var, add, eq, ge, gt, le, lt, sub, toExpr } from "../expr.js";
import { usesVar } from "../functor.js";
import type { Range } from "../stmt.js";
import { sameExpr } from "./exprKey.js";
import { type IntBound, constIntBoundOf, dtypeBound, intersectBounds, isIntegerDType } from "./intBound.js";
import { type ModularSet, intersectModular, modularSet, modularSetOf } from "./modularSet.js";
import { RewriteMemo, type SimplifyFacts, type SymbolicRange, rewriteSimplify } from "./rewriteSimplify.js";
import { CanonicalSimplifier } from "./canonical/simplifier.js";
import { constraintFacts } from "./constraints.js";
import { proveBySymbolicBound } from "./symbolicProof.js";
import { type RewriteFacts, TvmRewriter } from "./tvm-rewrite/rewriter.js";
import { DivisionByZeroError } from "./tvm-rewrite/zero-divisor.js";
import type { Reduction } from "./reduction/form.js";
import { canonicalSimplifyReduction } from "./reduction/simplify.js";

/** How hard `canProve` tries (TVM's ProofStrength). */
export type ProofStrength = "default" | "symbolicBound";

function isRange(x: Range | PrimExpr): x is Range {
  return !("kind" in x);
}

export class Analyzer implements SimplifyFacts {
  private readonly bounds = new Map<Var, IntBound>();
  private readonly substitutions = new Map<Var, PrimExpr>();
  /** Ranges with a symbolic end (`[0, n)`), kept as expressions: constant bounds lose them. */
  private readonly symbolicRanges = new Map<Var, SymbolicRange>();
  /** What simplification has worked out so far (see RewriteMemo); facts changing clear what depends on them. */
  private readonly memo = new RewriteMemo();
  /**
   * Variables asked about (`boundOf`) while they had no bound, since the memo was last cleared.
   * Only answers about them can change when a variable gets its first bound: bounding one that
   * nobody asked about (a loop variable bound on entering its loop, before its body is looked at)
   * keeps what the memo has worked out.
   */
  private unboundAsked = new Set<Var>();
  /** Variables whose bound was declared with `update`: reported as declared. */
  private readonly declared = new Set<Var>();
  /** Congruences known of variables (from constraints such as `x % 4 == 1`). */
  private readonly congruences = new Map<Var, ModularSet>();
  /** The ranges variables were bound to (TVM's int-set domain, which symbolic-bound proofs relax over). */
  private readonly ranges = new Map<Var, Range>();
  /** Bounds of compound expressions assumed inside the current constraint scopes (innermost last). */
  private readonly assumedBounds: { readonly e: PrimExpr; readonly bound: IntBound }[] = [];
  /** Conditions known to hold inside the current constraint scopes (innermost last). */
  private readonly knownConditions: PrimExpr[] = [];

  /**
   * Declares that `v` ranges over `r` (a Range: `[min, min + extent)`) or equals `r` (an
   * expression, which the simplifier then substitutes for `v`). Rebinding a variable to a
   * different fact throws unless `allowOverride` is set.
   */
  bind(v: Var, r: Range | PrimExpr, allowOverride = false): void {
    if (isRange(r)) {
      const lo = this.constIntBound(r.min).min;
      const hi = this.constIntBound(sub(add(r.min, r.extent), 1)).max;
      this.setBound(v, { min: lo, max: hi }, allowOverride);
      this.setSymbolicRange(v, r);
      this.ranges.set(v, r);
      return;
    }
    if (usesVar(r, (x) => x === v)) throw new IRError(`Analyzer.bind: ${v.name} cannot be bound to an expression that uses ${v.name}`);
    const value = this.simplify(r);
    const previous = this.substitutions.get(v);
    if (previous !== undefined && !allowOverride && !sameExpr(previous, value)) {
      throw new IRError(`Analyzer.bind: ${v.name} is already bound to a different expression`);
    }
    this.substitutions.set(v, value);
    this.factsChanged();
    this.setBound(v, this.constIntBound(value), true);
  }

  private setBound(v: Var, b: IntBound, allowOverride: boolean): void {
    if (!(b.min <= b.max)) throw new IRError(`Analyzer.bind: the range given for ${v.name} is empty ([${b.min}, ${b.max}])`);
    const previous = this.bounds.get(v);
    if (previous !== undefined && !allowOverride && (previous.min !== b.min || previous.max !== b.max)) {
      throw new IRError(`Analyzer.bind: ${v.name} is already bound to [${previous.min}, ${previous.max}], cannot rebind to [${b.min}, ${b.max}]`);
    }
    if (previous !== undefined && previous.min === b.min && previous.max === b.max) return;
    this.bounds.set(v, b);
    if (previous === undefined && !this.unboundAsked.has(v)) return;
    this.factsChanged();
  }

  /**
   * Declares inclusive bounds of `v` (TVM's `Analyzer.update` with a ConstIntBound); ±Infinity
   * for an open end. Throws on a different bound unless `allowOverride` is set.
   */
  update(v: Var, bound: IntBound, allowOverride = false): void {
    this.setBound(v, bound, allowOverride);
    // As TVM's: the declared bound is the answer, even where it is looser than the dtype's range.
    this.declared.add(v);
  }

  /**
   * Assumes `constraint` until the returned function is called (TVM's `constraint_scope`):
   * conjuncts comparing a variable with a constant narrow its bound, `x % c == b` gives a
   * congruence, and the conjuncts themselves simplify to true where they reappear.
   */
  enterConstraint(constraint: PrimExpr): () => void {
    const c = this.simplify(constraint);
    const facts = constraintFacts(c);
    const restore: (() => void)[] = [];
    for (const { v, bound } of facts.bounds) {
      const previous = this.bounds.get(v);
      const current = previous ?? dtypeBound(v.dtype);
      const narrowed = intersectBounds(current, bound);
      if (!(narrowed.min <= narrowed.max)) continue;
      this.bounds.set(v, narrowed);
      restore.push(() => (previous === undefined ? this.bounds.delete(v) : this.bounds.set(v, previous)));
    }
    for (const { v, set } of facts.congruences) {
      const previous = this.congruences.get(v);
      const narrowed = intersectModular(previous ?? modularSet(1, 0), set);
      if (narrowed === undefined) continue;
      this.congruences.set(v, narrowed);
      restore.push(() => (previous === undefined ? this.congruences.delete(v) : this.congruences.set(v, previous)));
    }
    // Compound expressions are bounded as written and as simplified (TVM keys them as written).
    const exprBounds = [...facts.exprBounds, ...constraintFacts(toExpr(constraint)).exprBounds];
    if (exprBounds.length > 0) {
      this.assumedBounds.push(...exprBounds);
      this.assumedBoundOf = (e) => this.assumedBound(e);
      restore.push(() => {
        this.assumedBounds.splice(this.assumedBounds.length - exprBounds.length, exprBounds.length);
        if (this.assumedBounds.length === 0) this.assumedBoundOf = undefined;
      });
    }
    const known = facts.conditions.filter((x) => x.kind !== "IntImm");
    this.knownConditions.push(...known);
    this.factsChanged();
    return () => {
      for (const r of restore.reverse()) r();
      this.knownConditions.splice(this.knownConditions.length - known.length, known.length);
      this.factsChanged();
    };
  }

  /** True or false when `cond` is, or negates, a condition of the enclosing constraint scopes. */
  knownCondition(cond: PrimExpr): boolean | undefined {
    for (const k of this.knownConditions) {
      if (sameExpr(k, cond)) return true;
      if (k.kind === "Not" && sameExpr(k.a, cond)) return false;
      if (cond.kind === "Not" && sameExpr(cond.a, k)) return false;
    }
    return undefined;
  }

  /** What `e` is known to be congruent to (TVM's `ModularSet`). */
  modularSet(e: PrimExpr): ModularSet {
    return modularSetOf(e, {
      substitutionOf: (v) => this.substitutions.get(v),
      congruenceOf: (v) => this.congruences.get(v),
      isNonNegative: (x) => this.constIntBound(x).min >= 0,
    });
  }

  private setSymbolicRange(v: Var, r: Range): void {
    const symbolic = r.min.kind !== "IntImm" || r.extent.kind !== "IntImm";
    if (!symbolic || !isIntegerDType(v.dtype)) {
      if (this.symbolicRanges.delete(v)) this.factsChanged();
      return;
    }
    this.symbolicRanges.set(v, { min: this.simplify(r.min), max: this.simplify(sub(add(r.min, r.extent), 1)) });
    this.factsChanged();
  }

  symbolicRangeOf(v: Var): SymbolicRange | undefined {
    return this.symbolicRanges.get(v);
  }

  private factsChanged(): void {
    this.memo.factsChanged();
    if (this.unboundAsked.size > 0) this.unboundAsked = new Set();
  }

  /**
   * Changes whenever a fact changes that earlier answers may depend on: results worked out under
   * one generation hold while it lasts.
   */
  get generation(): number {
    return this.memo.generation;
  }

  /**
   * The bound constraint scopes assume for compound expression `e` (VarBoundFacts); a plain field,
   * undefined while no scope assumes any, so bound evaluation without constraints pays one read.
   */
  assumedBoundOf: ((e: PrimExpr) => IntBound | undefined) | undefined = undefined;

  private assumedBound(e: PrimExpr): IntBound | undefined {
    let b: IntBound | undefined;
    for (const a of this.assumedBounds) if (sameExpr(a.e, e)) b = b === undefined ? a.bound : intersectBounds(b, a.bound);
    return b;
  }

  /** Known bound of a variable (its binding intersected with its dtype's range), if any. */
  boundOf(v: Var): IntBound | undefined {
    const b = this.bounds.get(v);
    if (b === undefined) {
      this.unboundAsked.add(v);
      return undefined;
    }
    return !isIntegerDType(v.dtype) || this.declared.has(v) ? b : intersectBounds(b, dtypeBound(v.dtype));
  }

  substitutionOf(v: Var): PrimExpr | undefined {
    return this.substitutions.get(v);
  }

  /** Inclusive constant bounds of `e`; ±Infinity where unknown. */
  constIntBound(e: PrimExpr): IntBound {
    return constIntBoundOf(this.substitutions.size > 0 ? this.simplify(e) : e, this, this.memo.bounds);
  }

  simplify(e: PrimExpr): PrimExpr {
    return rewriteSimplify(e, this, this.memo);
  }

  /**
   * TVM's `rewrite_simplify`: its local rewrite rules in its canonical forms (`x + -1`, `0 - y`),
   * under the same facts. `simplify` (linear forms) is what lowering uses.
   */
  rewriteSimplify(e: PrimExpr): PrimExpr {
    const rewriter = new TvmRewriter(this.rewriteFacts());
    // TVM runs the rewriter twice at most: a second pass sees what the first one's results built.
    const once = rewriter.visit(e);
    return sameExpr(once, e) ? once : rewriter.visit(once);
  }

  private rewriteFacts(): RewriteFacts {
    return {
      bound: (x) => this.constIntBound(x),
      modular: (x) => this.modularSet(x),
      canProve: (c) => this.canProve(c),
      canProveEqual: (a, b) => this.canProveEqual(a, b),
      substitutionOf: (v) => this.substitutions.get(v),
      knownCondition: (c) => this.knownCondition(c),
      enterConstraint: (c) => this.enterConstraint(c),
    };
  }

  /**
   * TVM's `canonical_simplify`: the rewrite rules, with index arithmetic worked out in TVM's
   * canonical forms (sums of `(x % upper) / lower * scale` terms), written in TVM's order.
   */
  canonicalSimplify(e: PrimExpr): PrimExpr {
    return new CanonicalSimplifier(this.rewriteFacts()).visit(e);
  }

  /**
   * TVM's `canonical_simplify` of a `Reduce`: the axes are bound to their domains (for good, as
   * TVM binds them), the parts simplified, unused combiner components dropped; a reduction over
   * no axes becomes an expression.
   */
  canonicalSimplifyReduction(r: Reduction): PrimExpr | Reduction {
    return canonicalSimplifyReduction(this, r);
  }

  /**
   * TVM's `Analyzer::Simplify`: canonical simplification, then rewrite and canonical in turn for
   * `steps` more rounds (stopping at a constant). `simplify` (linear forms) is what lowering uses.
   */
  tvmSimplify(e: PrimExpr, steps = 2): PrimExpr {
    let res = this.canonicalSimplify(e);
    for (let i = 0; i < steps && res.kind !== "IntImm"; i++) res = i % 2 === 0 ? this.rewriteSimplify(res) : this.canonicalSimplify(res);
    return res;
  }

  /**
   * True only when `cond` holds for every value the bound variables may take. `symbolicBound`
   * (TVM's `ProofStrength.SYMBOLIC_BOUND`) also tries TVM's simplification pipeline and, for a
   * comparison, the lower bound of its difference with ranged variables relaxed, symbolic ends
   * included (`i0 * 32 + i1 < (n + 31) // 32 * 32` for i0 in [0, (n + 31) // 32), i1 in [0, 32)).
   */
  canProve(cond: ExprLike, strength: ProofStrength = "default"): boolean {
    const e = toExpr(cond);
    const c = this.simplify(e);
    if (c.kind === "IntImm") return c.value !== 0;
    if (strength === "default") return false;
    try {
      const t = this.tvmSimplify(e);
      if (t.kind === "IntImm") return t.value !== 0;
      return proveBySymbolicBound(t, this.ranges, this);
    } catch (err) {
      // TVM's pipeline refuses a division by a constant zero; a proof about it fails.
      if (err instanceof DivisionByZeroError) return false;
      throw err;
    }
  }

  /**
   * TVM's `Analyzer::CanProve`: its simplification pipeline (`tvmSimplify`) decides, and with
   * `symbolicBound` a comparison's relaxed difference too. `canProve` is lowering's (linear forms
   * first), which proves some things TVM does not and misses some it does.
   */
  tvmCanProve(cond: ExprLike, strength: ProofStrength = "default"): boolean {
    const e = toExpr(cond);
    if (e.kind === "IntImm") return e.value !== 0;
    const t = this.tvmSimplify(e);
    if (t.kind === "IntImm") return t.value !== 0;
    return strength === "symbolicBound" && proveBySymbolicBound(t, this.ranges, this);
  }

  /**
   * TVM's `Analyzer::CanProveEqual`: two constants compare by value, integers prove `a - b == 0`.
   * Floats are equal when they simplify to the same expression (`n - n == 0` fails for NaN).
   */
  tvmCanProveEqual(a: ExprLike, b: ExprLike): boolean {
    const [x, y] = [toExpr(a), toExpr(b)];
    if (x.kind === "IntImm" && y.kind === "IntImm") return x.value === y.value;
    if (isIntegerDType(x.dtype) || isIntegerDType(y.dtype)) return this.tvmCanProve(eq(sub(x, y), 0));
    return sameExpr(this.tvmSimplify(x), this.tvmSimplify(y));
  }

  canProveEqual(a: ExprLike, b: ExprLike): boolean {
    const [x, y] = [toExpr(a), toExpr(b)];
    if (isIntegerDType(x.dtype) || isIntegerDType(y.dtype)) return this.canProve(eq(x, y));
    return sameExpr(this.simplify(x), this.simplify(y));
  }

  canProveLess(a: ExprLike, b: ExprLike): boolean {
    return this.canProve(lt(a, b));
  }

  canProveLessEqual(a: ExprLike, b: ExprLike): boolean {
    return this.canProve(le(a, b));
  }

  canProveGreater(a: ExprLike, b: ExprLike): boolean {
    return this.canProve(gt(a, b));
  }

  canProveGreaterEqual(a: ExprLike, b: ExprLike): boolean {
    return this.canProve(ge(a, b));
  }
}

/** Simplifies `e`, under the facts of `analyzer` when given. */
export function simplify(e: PrimExpr, analyzer?: Analyzer): PrimExpr {
  return (analyzer ?? new Analyzer()).simplify(e);
}

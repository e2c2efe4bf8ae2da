/**
 * `simplify` (TVM Simplify / StmtSimplify): arithmetic simplification of every expression of a
 * function, knowing the range of each loop and thread variable in scope and the conditions of
 * the enclosing `if`s (its condition in the then-branch, its negation in the else-branch), so
 * that a condition they imply becomes a constant and selects its branch. `if_then_else` and
 * `Select` arms are simplified under their condition too, and a store of an element to itself
 * becomes a no-op. Options (TVM's `tirx.StmtSimplify` settings) in `SimplifyOptions`.
 */
import {
  Analyzer,
  type AttrStmt,
  type For,
  type IfThenElse,
  type LetStmt,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  dtypeInfo,
  evaluate,
  forEachExpr,
  gt,
  intImm,
  linearFormOf,
  sameExprStructure,
  withBody,
} from "@tessera/ir";
import type { Pass } from "../pass.js";
import { AndOfOrs } from "../util/and-of-ors.js";
import { FactApplier } from "../util/fact-applier.js";
import { type KnownFacts, NO_FACTS, isStable, withCondition, withNegation } from "../util/known-facts.js";
import { isSelfCopy } from "../util/no-op.js";

export interface SimplifyOptions {
  /**
   * Rewrite with TVM's own simplifier (`Analyzer.tvmSimplify`: its rewrite and canonical rules,
   * in its forms: `0 - i` for `i * -1`, `n * n * 32`, `a and a` kept) instead of the linear-form
   * simplifier lowering uses, and the variable of a loop of one iteration is its minimum. What
   * TVM's Simplify pass gives; off in the lowering pipeline.
   */
  readonly tvmSimplifier?: boolean;
  /** TVM `transitively_prove_inequalities`: two known comparisons may combine in a proof. */
  readonly transitivelyProveInequalities?: boolean;
  /** TVM `convert_boolean_to_and_of_ors`: boolean expressions become a simplified AND of OR-clauses (util/and-of-ors.ts). */
  readonly convertBooleanToAndOfOrs?: boolean;
  /** TVM `apply_constraints_to_boolean_branches`: in `a && b`, `b` is simplified knowing `a` and `a` knowing `b`; in `a || b`, knowing the negations. */
  readonly applyConstraintsToBooleanBranches?: boolean;
}

class Simplifier extends IRMutator {
  private readonly analyzer = new Analyzer();
  private readonly applier: FactApplier;
  private readonly andOfOrs: AndOfOrs | undefined;
  private facts: KnownFacts = NO_FACTS;
  private readonly rewrite: (e: PrimExpr) => PrimExpr;
  private readonly unitLoopsAreConstant: boolean;

  constructor(opts: SimplifyOptions) {
    super();
    this.unitLoopsAreConstant = opts.tvmSimplifier === true;
    this.rewrite = opts.tvmSimplifier === true ? (e) => this.analyzer.tvmSimplify(e) : (e) => this.analyzer.simplify(e);
    this.andOfOrs = opts.convertBooleanToAndOfOrs === true ? new AndOfOrs(this.analyzer) : undefined;
    this.applier = new FactApplier(this.analyzer, opts.transitivelyProveInequalities === true, opts.applyConstraintsToBooleanBranches === true);
  }

  /** Simplifies a whole expression at once (the analyzer recurses by itself). */
  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "IntImm" || e.kind === "FloatImm" || e.kind === "StringImm") return e;
    let simplified = this.rewrite(e);
    if (this.applier.mayApply(simplified, this.facts)) {
      const applied = this.applier.apply(simplified, this.facts);
      if (applied !== simplified) simplified = this.rewrite(applied);
    }
    if (this.andOfOrs !== undefined && hasLogical(simplified)) simplified = this.andOfOrs.rewriteWithin(simplified);
    // Keep the original node when nothing changed, so unchanged subtrees stay shared.
    return sameExprStructure(simplified, e) ? e : simplified;
  }

  override visitFor(s: For): Stmt {
    const min = this.visitExpr(s.min);
    const extent = this.visitExpr(s.extent);
    this.bindRange(s.loopVar, min, extent);
    // The body runs only when the extent is positive (known already when it is a constant).
    const outer = this.facts;
    if (extent.kind !== "IntImm") this.facts = withCondition(outer, gt(extent, intImm(0, extent.dtype)));
    const body = this.visitStmt(s.body);
    this.facts = outer;
    return min === s.min && extent === s.extent && body === s.body ? s : { ...s, min, extent, body };
  }

  /** A let-bound variable equals its value in the body (TVM binds it in the analyzer too). */
  private visitLet(s: LetStmt): Stmt {
    const value = this.visitExpr(s.value);
    if (isStable(value) && isIntegerOrBool(s.variable)) this.analyzer.bind(s.variable, value, true);
    const body = this.visitStmt(s.body);
    return value === s.value && body === s.body ? s : { ...s, value, body };
  }

  /** Buffer extents are not negative: `n` of a parameter buffer of shape `(n * 32,)` is at least 0. */
  assumeShapes(func: PrimFunc): void {
    for (const buffer of func.bufferMap.values()) {
      for (const dim of buffer.shape) {
        const lower = shapeVarLowerBound(dim);
        if (lower !== undefined && this.analyzer.boundOf(lower.v) === undefined) {
          this.analyzer.bind(lower.v, { min: intImm(lower.min, lower.v.dtype), extent: intImm(2 ** 31 - 1 - lower.min, lower.v.dtype) });
        }
      }
    }
  }

  /**
   * Statements already simplified, with the facts' generation they were simplified under and
   * which they left unchanged: unrolled code repeats the same statement objects.
   */
  private readonly done = new Map<Stmt, { readonly generation: number; readonly facts: KnownFacts; readonly result: Stmt }>();

  override visitStmt(s: Stmt): Stmt {
    const generation = this.analyzer.generation;
    const done = this.done.get(s);
    if (done !== undefined && done.generation === generation && done.facts === this.facts) return done.result;
    const result = this.simplifyStmt(s);
    if (this.analyzer.generation === generation) this.done.set(s, { generation, facts: this.facts, result });
    return result;
  }

  private simplifyStmt(s: Stmt): Stmt {
    if (s.kind === "AttrStmt") return this.visitAttr(s);
    if (s.kind === "IfThenElse") return this.visitIf(s);
    if (s.kind === "LetStmt") return this.visitLet(s);
    const visited = super.visitStmt(s);
    return visited.kind === "BufferStore" && isSelfCopy(visited) ? evaluate(0) : visited;
  }

  private visitIf(s: IfThenElse): Stmt {
    const condition = this.visitExpr(s.condition);
    if (condition.kind === "IntImm") {
      if (condition.value !== 0) return this.visitStmt(s.thenCase);
      return s.elseCase === undefined ? evaluate(0) : this.visitStmt(s.elseCase);
    }
    const outer = this.facts;
    this.facts = withCondition(outer, condition);
    const thenCase = this.visitStmt(s.thenCase);
    let elseCase: Stmt | undefined;
    if (s.elseCase !== undefined) {
      this.facts = withNegation(outer, condition);
      elseCase = this.visitStmt(s.elseCase);
    }
    this.facts = outer;
    return condition === s.condition && thenCase === s.thenCase && elseCase === s.elseCase ? s : { ...s, condition, thenCase, elseCase };
  }

  private visitAttr(s: AttrStmt): Stmt {
    const value = this.visitExpr(s.value);
    if ((s.key === "thread_extent" || s.key === "virtual_thread") && s.node !== undefined) {
      this.bindRange(s.node, intImm(0, value.dtype), value);
    }
    const body = this.visitStmt(s.body);
    return value === s.value && body === s.body ? s : { ...s, value, body };
  }

  private bindRange(v: Var, min: PrimExpr, extent: PrimExpr): void {
    if (extent.kind === "IntImm" && extent.value <= 0) return;
    // A loop of one iteration: its variable is its minimum, as TVM's Analyzer::Bind makes it (with
    // TVM's simplifier only: the golden CUDA of the lowering pipeline keeps such variables).
    if (this.unitLoopsAreConstant && extent.kind === "IntImm" && extent.value === 1) this.analyzer.bind(v, min, true);
    else this.analyzer.bind(v, { min, extent }, true);
  }
}

/** For a shape `c * v + d` (c > 0, constant d): `v` and the least value that keeps it non-negative. */
function shapeVarLowerBound(dim: PrimExpr): { v: Var; min: number } | undefined {
  const form = linearFormOf(dim);
  if (form.terms.length !== 1) return undefined;
  const [term] = form.terms;
  if (term!.atom.kind !== "Var" || term!.coef <= 0) return undefined;
  return { v: term!.atom, min: Math.max(0, Math.ceil(-form.constant / term!.coef)) };
}

function hasLogical(e: PrimExpr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.kind === "Binary" && (x.op === "and" || x.op === "or")) found = true;
  });
  return found;
}

function isIntegerOrBool(v: Var): boolean {
  const code = dtypeInfo(v.dtype).code;
  return dtypeInfo(v.dtype).lanes === 1 && (code === "int" || code === "uint" || code === "bool");
}

export function simplifyFunc(func: PrimFunc, opts: SimplifyOptions = {}): PrimFunc {
  const simplifier = new Simplifier(opts);
  simplifier.assumeShapes(func);
  const body = simplifier.visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const simplifyPass: Pass = { name: "simplify", run: (func) => simplifyFunc(func) };

/**
 * Pass 11, `unrollLoop` (TVM UnrollLoop). Which loops are unrolled:
 *
 * - every loop of kind `unrolled`;
 * - a serial loop of constant extent with no ordinary (not unrolled, not vectorized) loop inside and at most
 *   `autoMaxDepth` unrolled loops nested in it, when extent × steps of its body ≤ `autoMaxStep`
 *   (or extent ≤ `autoMaxExtent`). The steps of a body are its stores and evaluations, an
 *   unrolled loop's counted extent times.
 *
 * `autoMaxStep` (default 0: no serial loop is unrolled) and `explicitUnroll` (default true) are
 * overridden inside `AttrStmt("pragma_auto_unroll_max_step", _, n)` and
 * `AttrStmt("pragma_unroll_explicit", _, 0|1)` — what lowerOpaqueBlock makes of MetaSchedule's
 * loop annotations; the pass removes those attributes. An unrolled loop is expanded (its body
 * repeated with the loop variable replaced by each value, indices folded, so a register tile ends
 * up with constant indices) when unrolling is explicit and the expansion is possible and small
 * (extent × statements ≤ max(MAX_UNROLLED_STATEMENTS, autoMaxStep); storage the body allocates
 * first is allocated once around the copies; no other storage or variable declared in the body,
 * which would be declared twice in one C scope); otherwise it stays a loop of kind `unrolled`,
 * printed `#pragma unroll`.
 *
 * A vectorized loop counts as one step (one vector statement), except under `stridedVectorLanes`
 * (the C target) when an access in it is not unit-stride in its variable: gcc makes such a loop one
 * scalar statement per lane, and unrolling loops around it made gcc spend minutes (see C_UNROLL_CONFIG).
 */
import {
  type Allocate,
  type AttrStmt,
  type DeclBuffer,
  type PrimExpr,
  type Var,
  type For,
  type PrimFunc,
  type Stmt,
  annotationFlag,
  annotationInt,
  annotationValueProblem,
  evaluate,
  forEachExpr,
  forEachStmt,
  linearFormOf,
  seq,
  simplify,
  usesVar,
  withBody,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";
import { instantiations } from "../util/instantiate.js";
import { isAllocationAnnotation } from "../util/flat-allocation.js";

const PASS = "unrollLoop";

/** Safety cap on the statements one expansion may produce, whatever the pragmas say. */
export const MAX_UNROLLED_STATEMENTS = 512;

export interface UnrollConfig {
  /** A serial loop is auto-unrolled when extent × steps of its body ≤ this. */
  readonly autoMaxStep: number;
  /** The most unrolled loops nested inside an auto-unrolled loop. */
  readonly autoMaxDepth: number;
  /** A serial loop of at most this extent is auto-unrolled whatever its body. */
  readonly autoMaxExtent: number;
  /** Expand unrolled loops (true) or leave them to the CUDA compiler as `#pragma unroll` (false). */
  readonly explicitUnroll: boolean;
  /**
   * The largest `pragma_auto_unroll_max_step` the target honours; larger budgets are clamped to it
   * (absent: none). The C target sets one: gcc spends minutes on loop nests of hundreds of SIMD loops.
   */
  readonly autoMaxStepCeiling?: number;
  /**
   * A vectorized loop with an access that is not unit-stride in its variable (a transposing copy)
   * counts as extent × its body's steps rather than as one vector statement (absent: false, TVM's count).
   */
  readonly stridedVectorLanes?: boolean;
}

/** TVM's `tirx.UnrollLoop` defaults. */
export const DEFAULT_UNROLL_CONFIG: UnrollConfig = { autoMaxStep: 0, autoMaxDepth: 8, autoMaxExtent: 0, explicitUnroll: true };

/**
 * The C target's ceiling on the auto-unroll budget: MetaSchedule's CPU space samples 0/16/64/512 (TVM's
 * LLVM values), and at 512 a register tile's rows, its column vectors and the k loop around them unrolled
 * into up to 512 `#pragma omp simd` loops that gcc took over 120 s of CPU to compile (11 KB of C; the same
 * nest with 64 took 1 s). docs/architecture/tvm-deviations-lowering.md has the bullet.
 */
export const C_AUTO_UNROLL_MAX_STEP = 64;

/**
 * The C target's configuration: TVM's defaults with the budget ceiling above, and strided vector loops
 * counted by their lanes: RewriteLayout's copy of A into 4-row slivers of a 64³ matmul (a vector loop of
 * 64 lanes storing at stride 4) under the 64 rows unrolled by `#pragma GCC unroll 64` took gcc 11–16 s
 * of CPU (0.2 s rolled), and the 64³ tuning spent 94 of its 115 s building such candidates.
 */
export const C_UNROLL_CONFIG: UnrollConfig = { ...DEFAULT_UNROLL_CONFIG, autoMaxStepCeiling: C_AUTO_UNROLL_MAX_STEP, stridedVectorLanes: true };

const MAX_STEP_PRAGMA = "pragma_auto_unroll_max_step";
const EXPLICIT_PRAGMA = "pragma_unroll_explicit";

export function unrollLoop(func: PrimFunc, config: UnrollConfig = DEFAULT_UNROLL_CONFIG): PrimFunc {
  const body = new LoopUnroller(config).visit(func.body).stmt;
  return body === func.body ? func : withBody(func, body);
}

export const unrollLoopPass: Pass = { name: PASS, run: (func) => unrollLoop(func) };

/** The pass with the C target's budget ceiling (`C_UNROLL_CONFIG`). */
export const cUnrollLoopPass: Pass = { name: PASS, run: (func) => unrollLoop(func, C_UNROLL_CONFIG) };

/** A rewritten statement and what the unrolling decision of an enclosing loop needs to know of it. */
interface Visited {
  readonly stmt: Stmt;
  /** Stores and evaluations it executes, unrolled loops counted extent times. */
  readonly steps: number;
  /** The deepest nest of unrolled loops in it. */
  readonly unrollDepth: number;
  /** Whether it contains a loop that is not unrolled. */
  readonly hasOrdinaryLoop: boolean;
}

const LEAF = { steps: 1, unrollDepth: 0, hasOrdinaryLoop: false };

class LoopUnroller {
  constructor(private config: UnrollConfig) {}

  visit(s: Stmt): Visited {
    switch (s.kind) {
      case "BufferStore":
      case "Evaluate":
        return { stmt: s, ...LEAF };
      case "SeqStmt": {
        const parts = s.seq.map((c) => this.visit(c));
        const stmts = parts.map((p) => p.stmt);
        return combine(stmts.every((x, i) => x === s.seq[i]) ? s : seq(stmts), parts);
      }
      case "IfThenElse": {
        const thenCase = this.visit(s.thenCase);
        const elseCase = s.elseCase === undefined ? undefined : this.visit(s.elseCase);
        const same = thenCase.stmt === s.thenCase && elseCase?.stmt === s.elseCase;
        const stmt = same ? s : { ...s, thenCase: thenCase.stmt, elseCase: elseCase?.stmt };
        return combine(stmt, elseCase === undefined ? [thenCase] : [thenCase, elseCase]);
      }
      case "AttrStmt":
        return this.visitAttr(s);
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer": {
        const body = this.visit(s.body);
        return { ...body, stmt: body.stmt === s.body ? s : { ...s, body: body.stmt } };
      }
      case "For":
        return this.visitFor(s);
      case "While": {
        // A loop of unknown trip count: never unrolled, and it keeps the loops around it rolled.
        const body = this.visit(s.body);
        return { ...body, stmt: body.stmt === s.body ? s : { ...s, body: body.stmt }, hasOrdinaryLoop: true };
      }
      case "BlockRealize":
        throw new LoweringError(PASS, `block ${s.block.name} is still present; unrollLoop runs on lowered code without blocks`);
    }
  }

  /** The unrolling pragmas set the configuration of their body and disappear. */
  private visitAttr(s: AttrStmt): Visited {
    const override = this.pragmaOverride(s);
    if (override === undefined) {
      const body = this.visit(s.body);
      return { ...body, stmt: body.stmt === s.body ? s : { ...s, body: body.stmt } };
    }
    const saved = this.config;
    this.config = { ...saved, ...override };
    try {
      return this.visit(s.body);
    } finally {
      this.config = saved;
    }
  }

  private pragmaOverride(s: AttrStmt): Partial<UnrollConfig> | undefined {
    if (s.key !== MAX_STEP_PRAGMA && s.key !== EXPLICIT_PRAGMA) return undefined;
    const problem = annotationValueProblem("an attribute statement", s.key, s.value);
    if (problem !== undefined) throw new LoweringError(PASS, problem);
    if (s.key === EXPLICIT_PRAGMA) return { explicitUnroll: annotationFlag(s.value)! };
    const budget = annotationInt(s.value)!;
    const ceiling = this.config.autoMaxStepCeiling;
    return { autoMaxStep: ceiling === undefined ? budget : Math.min(budget, ceiling) };
  }

  private visitFor(s: For): Visited {
    const body = this.visit(s.body);
    const loop: For = body.stmt === s.body ? s : { ...s, body: body.stmt };
    const extent = constantExtent(s);
    // A vectorized loop is one vector statement (TVM vectorizes before it unrolls; the C target
    // leaves the loop to the C compiler's SIMD): it counts as its body's steps, and does not keep
    // the loops around it from unrolling — a register tile's rows unroll around its vector columns.
    if (loop.forKind === "vectorized" && extent !== undefined) {
      const lanes = this.config.stridedVectorLanes === true && !isUnitStride(loop) ? extent : 1;
      return { stmt: loop, steps: lanes * body.steps, unrollDepth: body.unrollDepth, hasOrdinaryLoop: body.hasOrdinaryLoop };
    }
    if (!this.unrolls(loop, extent, body)) {
      return { stmt: loop, steps: body.steps, unrollDepth: body.unrollDepth, hasOrdinaryLoop: true };
    }
    const visited = { steps: (extent ?? 1) * body.steps, unrollDepth: body.unrollDepth + 1, hasOrdinaryLoop: body.hasOrdinaryLoop };
    if (extent !== undefined && this.config.explicitUnroll) {
      const expanded = this.expand(loop, extent);
      // No iteration: nothing is left, not even the loops of the body.
      if (expanded !== undefined) return extent === 0 ? { stmt: expanded, steps: 0, unrollDepth: 0, hasOrdinaryLoop: false } : { ...visited, stmt: expanded };
    }
    return { ...visited, stmt: loop.forKind === "unrolled" ? loop : { ...loop, forKind: "unrolled" } };
  }

  private unrolls(loop: For, extent: number | undefined, body: Visited): boolean {
    if (loop.forKind === "unrolled") return true;
    if (loop.forKind !== "serial" || extent === undefined || body.hasOrdinaryLoop) return false;
    if (body.unrollDepth > this.config.autoMaxDepth) return false;
    return extent * body.steps <= this.config.autoMaxStep || extent <= this.config.autoMaxExtent;
  }

  /**
   * The body once per iteration, or undefined when it cannot or should not be repeated. Storage
   * the body allocates first is allocated once around the copies, as a C compiler reuses a loop
   * body's array for every iteration.
   */
  private expand(loop: For, extent: number): Stmt | undefined {
    if (extent === 0) return evaluate(0);
    const { scopes, inner } = peelStorage(loop);
    const size = statementCount(inner);
    if (size === undefined || extent * size > Math.max(MAX_UNROLLED_STATEMENTS, this.config.autoMaxStep)) return undefined;
    const min = loop.min.kind === "IntImm" ? loop.min.value : undefined;
    if (min === undefined) return undefined;
    const copies = instantiations(
      inner,
      loop.loopVar,
      Array.from({ length: extent }, (_, i) => min + i),
    );
    return scopes.reduceRight<Stmt>((body, scope) => ({ ...scope, body }), seq(copies));
  }
}

/**
 * The allocations (with their buffer declarations and allocation annotations) that open the loop
 * body, when none depends on the loop variable.
 */
function peelStorage(loop: For): { scopes: (Allocate | DeclBuffer | AttrStmt)[]; inner: Stmt } {
  const scopes: (Allocate | DeclBuffer | AttrStmt)[] = [];
  let inner = loop.body;
  for (;;) {
    if ((inner.kind === "Allocate" || inner.kind === "DeclBuffer") && !inner.buffer.shape.some((e) => usesVar(e, (v) => v === loop.loopVar))) {
      scopes.push(inner);
      inner = inner.body;
    } else if (inner.kind === "AttrStmt" && isAllocationAnnotation(inner) && scopes.some(allocates(inner.node))) {
      scopes.push(inner);
      inner = inner.body;
    } else return { scopes, inner };
  }
}

const allocates =
  (data: Var | undefined) =>
  (s: Allocate | DeclBuffer | AttrStmt): boolean =>
    s.kind === "Allocate" && s.buffer.data === data;

/** Whether every buffer access in the loop is invariant in its variable or moves by one element per iteration (a plain vector access). */
function isUnitStride(loop: For): boolean {
  const mentions = (e: PrimExpr): boolean => usesVar(e, (v) => v === loop.loopVar);
  const unitStride = (indices: readonly PrimExpr[]): boolean => {
    if (!indices.slice(0, -1).every((e) => !mentions(e))) return false;
    const last = indices.at(-1);
    if (last === undefined || !mentions(last)) return true;
    const terms = linearFormOf(simplify(last)).terms.filter((t) => mentions(t.atom));
    return terms.length === 1 && terms[0]!.atom === loop.loopVar && terms[0]!.coef === 1;
  };
  let ok = true;
  forEachStmt(loop.body, (s) => {
    if (s.kind === "BufferStore" && !unitStride(s.indices)) ok = false;
  });
  forEachExpr(loop.body, (e) => {
    if (e.kind === "BufferLoad" && !unitStride(e.indices)) ok = false;
  });
  return ok;
}

function constantExtent(loop: For): number | undefined {
  const e = loop.extent.kind === "IntImm" ? loop.extent : simplify(loop.extent);
  return e.kind === "IntImm" && e.value >= 0 ? e.value : undefined;
}

/** Sequences and conditionals: steps add up, depths are the deepest part's. */
function combine(stmt: Stmt, parts: readonly Visited[]): Visited {
  return {
    stmt,
    steps: parts.reduce((n, p) => n + p.steps, 0),
    unrollDepth: parts.reduce((d, p) => Math.max(d, p.unrollDepth), 0),
    hasOrdinaryLoop: parts.some((p) => p.hasOrdinaryLoop),
  };
}

/**
 * Statements an expansion of `body` produces (inner loops count their extent times), or
 * undefined when the body cannot be repeated (it declares storage or variables, or has a loop of
 * symbolic extent).
 */
function statementCount(body: Stmt): number | undefined {
  switch (body.kind) {
    case "BufferStore":
    case "Evaluate":
      return 1;
    case "SeqStmt": {
      let n = 0;
      for (const s of body.seq) {
        const k = statementCount(s);
        if (k === undefined) return undefined;
        n += k;
      }
      return n;
    }
    case "IfThenElse": {
      const t = statementCount(body.thenCase);
      const e = body.elseCase === undefined ? 0 : statementCount(body.elseCase);
      return t === undefined || e === undefined ? undefined : t + e;
    }
    case "For": {
      const inner = statementCount(body.body);
      return body.extent.kind !== "IntImm" || inner === undefined ? undefined : body.extent.value * inner;
    }
    case "AttrStmt":
      // Attributes declare nothing: a thread_extent may scope its variable at several places.
      return statementCount(body.body);
    default:
      return undefined;
  }
}

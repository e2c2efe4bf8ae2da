/**
 * Pass 12, `threadSync`: inserts `T.tvm_storage_sync("shared")` (`__syncthreads()`) wherever a
 * shared element written by one thread may be read (RAW) or overwritten (WAR) by another thread
 * of the block, following TVM's ThreadSync rule:
 *
 * - Each statement sequence inside a kernel is walked in order, keeping the shared reads and
 *   writes not yet followed by a barrier. A statement that reads a buffer with a pending write, or
 *   writes one with a pending read, gets a barrier before it; a barrier clears the pending sets.
 * - Accesses naming the same single element per thread (structurally equal point indices that use
 *   every thread index of the block) do not conflict.
 * - In a loop body, the accesses still pending at the end of the body are checked against the
 *   start of the body (the next iteration): one barrier goes before the first conflicting
 *   statement.
 * - Compound statements are summarised for their parent: accesses before their first barrier,
 *   a barrier, accesses after their last barrier.
 *
 * - An asynchronous copy (`async_scope`, from software pipelining) lands only when a thread waits
 *   for it, so, as in TVM, every wait (`async_wait_queue_scope`) is followed by a barrier that
 *   publishes the landed data to the other threads; as a write, the copy counts where it is issued.
 *
 * A barrier must be reached by every thread of the block, so one needed inside a condition or a
 * loop whose outcome depends on the thread index is a LoweringError, never inserted.
 */
import {
  type AttrStmt,
  type Buffer,
  type BufferStore,
  type For,
  type While,
  type IfThenElse,
  type PrimExpr,
  type Stmt,
  type Var,
  forEachExpr,
  intImm,
  printExpr,
  seq,
  usesVar,
  withBody,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { type Pass, cudaPass } from "../pass.js";
import {
  type AccessEntry,
  type ConflictContext,
  type SharedAccess,
  bindLet,
  isSharedScope,
  mayConflict,
  relaxOver,
  sharedPointerAccesses,
  sharedReads,
} from "../kernel/shared-access.js";
import { VarDomains } from "../kernel/var-domains.js";
import { DisjointnessCache } from "../kernel/index-disjointness.js";
import { ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE } from "@tessera/ir";
import { barrier, isBarrier } from "../kernel/sync.js";
import { isThreadExtent, isThreadIndexVar, threadExtentAttrs } from "../kernel/thread-env.js";

const PASS = "threadSync";

export const threadSyncPass: Pass = cudaPass(PASS, (func) => {
  const planned = plan(func.body, {
    ...HOST,
    domains: new VarDomains(),
    disjointness: new DisjointnessCache(),
    storeAccesses: new Map(),
    sharedByData: new Map(),
  });
  return planned.stmt === func.body ? func : withBody(func, planned.stmt);
});

/** What is known where a statement runs. */
interface Env {
  /** Inside a launch nest: shared accesses are tracked. */
  readonly inKernel: boolean;
  /** Thread indices of the block with extent > 1 (the variables a per-thread index must use). */
  readonly threadVars: readonly Var[];
  /** Variables whose value may differ between threads of one block. */
  readonly nonUniform: ReadonlySet<Var>;
  /** The enclosing thread-dependent condition or loop, which not every thread reaches. */
  readonly divergence: string | undefined;
  /** Bounds of every variable met so far (shared by the whole walk). */
  readonly domains: VarDomains;
  /** What the index-disjointness proofs of the walk share. */
  readonly disjointness: DisjointnessCache;
  /** The accesses of each store met (unrolled code repeats the same statement objects). */
  readonly storeAccesses: Map<BufferStore, readonly SharedAccess[]>;
  /** The shared allocations met so far, by their storage variable (what `tvm_access_ptr` names). */
  readonly sharedByData: Map<Var, Buffer>;
}

const HOST: Omit<Env, "domains" | "disjointness" | "storeAccesses" | "sharedByData"> = {
  inKernel: false,
  threadVars: [],
  nonUniform: new Set(),
  divergence: undefined,
};

interface Planned {
  readonly stmt: Stmt;
  /** The statement's shared accesses and barriers, as its parent sequence sees them. */
  readonly entries: readonly AccessEntry[];
}

function plan(s: Stmt, env: Env): Planned {
  switch (s.kind) {
    case "BufferStore":
      return { stmt: s, entries: env.inKernel ? storeAccesses(s, env) : [] };
    case "Evaluate":
      if (isBarrier(s)) return { stmt: s, entries: [{ kind: "sync" }] };
      return { stmt: s, entries: env.inKernel ? [...sharedReads(s.value), ...sharedPointerAccesses(s.value, (v) => env.sharedByData.get(v))] : [] };
    case "SeqStmt":
      return planSequence(s, env, undefined);
    case "For":
      return planFor(s, env);
    case "IfThenElse":
      return planIf(s, env);
    case "While":
      return planWhile(s, env);
    case "AttrStmt":
      return planAttr(s, env);
    case "LetStmt": {
      const reads = env.inKernel ? sharedReads(s.value) : [];
      const nonUniform = isUniform(s.value, env) ? env.nonUniform : extend(env.nonUniform, s.variable);
      env.domains.bindValue(s.variable, s.value);
      const body = planSequence(s.body, { ...env, nonUniform }, undefined);
      return { stmt: rebuilt(s, body.stmt), entries: [...reads, ...bindLet(body.entries, s.variable, s.value)] };
    }
    case "Allocate":
    case "DeclBuffer": {
      if (isSharedScope(s.buffer)) env.sharedByData.set(s.buffer.data, s.buffer);
      const body = planSequence(s.body, env, undefined);
      return { stmt: rebuilt(s, body.stmt), entries: body.entries };
    }
    case "BlockRealize":
      throw new LoweringError(PASS, `block ${s.block.name} is still present; threadSync runs on lowered code without blocks`);
  }
}

function storeAccesses(s: BufferStore, env: Env): readonly SharedAccess[] {
  let accesses = env.storeAccesses.get(s);
  if (accesses === undefined) {
    const reads = sharedReads(...s.indices, s.value);
    accesses = isSharedScope(s.buffer) ? [...reads, { kind: "write", buffer: s.buffer, indices: s.indices }] : reads;
    env.storeAccesses.set(s, accesses);
  }
  return accesses;
}

function planAttr(s: AttrStmt, env: Env): Planned {
  if (s.key === ASYNC_WAIT_QUEUE_SCOPE) return planAsyncWait(s, env);
  if (!isThreadExtent(s)) {
    const body = planSequence(s.body, env, undefined);
    return { stmt: rebuilt(s, body.stmt), entries: body.entries };
  }
  let inner = env;
  if (!env.inKernel) {
    // The outermost launch attribute: the block's thread indices are those of this launch nest.
    const threadVars = uniqueVars(
      threadExtentAttrs(s)
        .filter((a) => isThreadIndexVar(a.node) && !(a.value.kind === "IntImm" && a.value.value === 1))
        .map((a) => a.node),
    );
    inner = { ...env, inKernel: true, threadVars };
  }
  if (isThreadIndexVar(s.node)) inner = { ...inner, nonUniform: extend(inner.nonUniform, s.node) };
  env.domains.bindRange(s.node, intImm(0, s.value.dtype), s.value);
  const body = planSequence(s.body, inner, undefined);
  return { stmt: rebuilt(s, body.stmt), entries: body.entries };
}

/** `async_wait_queue_scope` > `async_wait_inflight_count` > body: a barrier goes first in the body. */
function planAsyncWait(s: AttrStmt, env: Env): Planned {
  const inflight = s.body;
  if (inflight.kind !== "AttrStmt" || inflight.key !== ASYNC_WAIT_INFLIGHT_COUNT) {
    throw new LoweringError(PASS, `${ASYNC_WAIT_QUEUE_SCOPE} must enclose ${ASYNC_WAIT_INFLIGHT_COUNT} directly`);
  }
  if (env.divergence !== undefined) {
    throw new LoweringError(
      PASS,
      `an asynchronous copy wait (${ASYNC_WAIT_QUEUE_SCOPE}) needs a barrier after it, but it is inside ${env.divergence}; ` +
        `not every thread of the block reaches it`,
    );
  }
  const first = inflight.body.kind === "SeqStmt" ? inflight.body.seq[0] : inflight.body;
  const synced = first !== undefined && isBarrier(first) ? inflight.body : seq([barrier(), inflight.body]);
  const body = planSequence(synced, env, undefined);
  const stmt = body.stmt === inflight.body ? s : { ...s, body: { ...inflight, body: body.stmt } };
  return { stmt, entries: body.entries };
}

function planFor(s: For, env: Env): Planned {
  const bounds = [s.min, s.extent];
  const uniformTrips = bounds.every((b) => isUniform(b, env));
  const inner: Env = uniformTrips
    ? env
    : {
        ...env,
        nonUniform: extend(env.nonUniform, s.loopVar),
        divergence: `loop ${s.loopVar.name}, whose trip count (${printExpr(s.extent)}) depends on the thread index`,
      };
  const reads = env.inKernel ? sharedReads(...bounds) : [];
  env.domains.bindRange(s.loopVar, s.min, s.extent);
  const body = planSequence(s.body, inner, s);
  return { stmt: rebuilt(s, body.stmt), entries: [...reads, ...relaxOver(body.entries, s.loopVar, env.domains)] };
}

/**
 * A while loop has no loop variable to tell one iteration's accesses from the next's, so barriers
 * are planned only for while loops that touch no shared memory and synchronise nothing.
 */
function planWhile(s: While, env: Env): Planned {
  const reads = env.inKernel ? sharedReads(s.condition) : [];
  const body = planSequence(s.body, env, undefined);
  if (reads.length > 0 || body.entries.length > 0) {
    throw new LoweringError(
      PASS,
      `the loop while ${printExpr(s.condition)} accesses shared memory or synchronises threads; barriers are planned only around for loops`,
    );
  }
  return { stmt: rebuilt(s, body.stmt), entries: [] };
}

function planIf(s: IfThenElse, env: Env): Planned {
  const inner: Env = isUniform(s.condition, env) ? env : { ...env, divergence: `if ${printExpr(s.condition)}, a condition that depends on the thread index` };
  const reads = env.inKernel ? sharedReads(s.condition) : [];
  const thenCase = planSequence(s.thenCase, inner, undefined);
  const elseCase = s.elseCase === undefined ? undefined : planSequence(s.elseCase, inner, undefined);
  const stmt: Stmt = thenCase.stmt === s.thenCase && elseCase?.stmt === s.elseCase ? s : { ...s, thenCase: thenCase.stmt, elseCase: elseCase?.stmt };
  return { stmt, entries: [...reads, ...joinBranches(thenCase.entries, elseCase?.entries ?? [])] };
}

/**
 * The accesses of an `if` as its parent sees them. Only when both branches pass a barrier does
 * the `if` clear what was pending before it; otherwise every access of both branches counts as
 * unsynchronised, before and after.
 */
function joinBranches(a: readonly AccessEntry[], b: readonly AccessEntry[]): AccessEntry[] {
  const syncAt = (xs: readonly AccessEntry[]): number => xs.findIndex((e) => e.kind === "sync");
  const [sa, sb] = [syncAt(a), syncAt(b)];
  if (sa < 0 || sb < 0) return [...a, ...b].filter((e) => e.kind !== "sync");
  // Both are exposed summaries (head, one barrier, tail).
  return [...a.slice(0, sa), ...b.slice(0, sb), { kind: "sync" }, ...a.slice(sa + 1), ...b.slice(sb + 1)];
}

/**
 * The heart of the pass: barriers between the statements of one sequence (see the file comment).
 * `body` is a SeqStmt or a single statement (a sequence of one), e.g. a loop or branch body, so
 * that barriers can go inside it.
 */
function planSequence(body: Stmt, env: Env, loop: For | undefined): Planned {
  const stmts = body.kind === "SeqStmt" ? body.seq : [body];
  const planned = stmts.map((s) => plan(s, env));
  const needsBarrier = planned.map(() => false);
  let pending = new PendingAccesses();

  planned.forEach((p, i) => {
    const conflict = pending.firstConflict(p.entries, { threadVars: env.threadVars, changing: [], domains: env.domains, cache: env.disjointness });
    if (conflict !== undefined) {
      requireUniform(env, conflict, "");
      needsBarrier[i] = true;
      pending = new PendingAccesses();
    }
    pending.absorb(p.entries);
  });

  if (loop !== undefined && !(loop.extent.kind === "IntImm" && loop.extent.value <= 1)) {
    // Loop-carried: what the end of one iteration leaves pending against the start of the next.
    for (let i = 0; i < planned.length && !needsBarrier[i] && !pending.isEmpty(); i++) {
      const entries = planned[i]!.entries;
      const conflict = pending.firstConflict(entries, {
        threadVars: env.threadVars,
        changing: [loop.loopVar],
        domains: env.domains,
        cache: env.disjointness,
      });
      if (conflict !== undefined) {
        requireUniform(env, conflict, ` in the next iteration of loop ${loop.loopVar.name}`);
        needsBarrier[i] = true;
        break;
      }
      if (entries.some((e) => e.kind === "sync")) break;
    }
  }

  const out: Stmt[] = [];
  const entries: AccessEntry[] = [];
  planned.forEach((p, i) => {
    if (needsBarrier[i]) {
      out.push(barrier());
      entries.push({ kind: "sync" });
    }
    out.push(p.stmt);
    entries.push(...p.entries);
  });
  const unchanged = out.length === stmts.length && out.every((s, i) => s === stmts[i]);
  const stmt = unchanged ? body : seq(out);
  return { stmt, entries: exposed(entries) };
}

/** Accesses before the first barrier, one barrier, accesses after the last barrier. */
function exposed(entries: readonly AccessEntry[]): AccessEntry[] {
  const first = entries.findIndex((e) => e.kind === "sync");
  if (first < 0) return [...entries];
  let last = entries.length - 1;
  while (entries[last]!.kind !== "sync") last--;
  return [...entries.slice(0, first + 1), ...entries.slice(last + 1)];
}

interface Conflict {
  readonly hazard: "read after write" | "write after read";
  readonly access: SharedAccess;
}

/** Shared reads and writes not yet followed by a barrier. */
class PendingAccesses {
  private reads: SharedAccess[] = [];
  private writes: SharedAccess[] = [];

  isEmpty(): boolean {
    return this.reads.length === 0 && this.writes.length === 0;
  }

  /** The first access of `entries` that conflicts with a pending one (before any barrier among `entries`). */
  firstConflict(entries: readonly AccessEntry[], ctx: ConflictContext): Conflict | undefined {
    let reads: readonly SharedAccess[] = this.reads;
    let writes: readonly SharedAccess[] = this.writes;
    for (const e of entries) {
      if (e.kind === "sync") {
        reads = [];
        writes = [];
      } else if (e.kind === "read") {
        if (writes.some((w) => mayConflict(w, e, ctx))) return { hazard: "read after write", access: e };
      } else if (reads.some((r) => mayConflict(r, e, ctx))) {
        return { hazard: "write after read", access: e };
      }
    }
    return undefined;
  }

  absorb(entries: readonly AccessEntry[]): void {
    for (const e of entries) {
      if (e.kind === "sync") {
        this.reads = [];
        this.writes = [];
      } else if (e.kind === "read") this.reads.push(e);
      else this.writes.push(e);
    }
  }
}

function requireUniform(env: Env, conflict: Conflict, when: string): void {
  if (env.divergence === undefined) return;
  throw new LoweringError(
    PASS,
    `shared buffer ${conflict.access.buffer.name} needs a barrier (${conflict.hazard} by another thread${when}) inside ` +
      `${env.divergence}; not every thread of the block reaches that point, so __syncthreads() there would hang or ` +
      `be undefined. Move the shared-memory access out of the thread-dependent code, or make the condition the same ` +
      `for all threads of a block`,
  );
}

/** Same value in every thread of a block: no thread-dependent variable, no load of per-thread data. */
function isUniform(e: PrimExpr, env: Env): boolean {
  if (usesVar(e, (v) => env.nonUniform.has(v))) return false;
  let uniform = true;
  forEachExpr(e, (x) => {
    if (x.kind === "BufferLoad" && (x.buffer.scope === "local" || x.buffer.scope === "warp")) uniform = false;
  });
  return uniform;
}

function extend(set: ReadonlySet<Var>, v: Var): ReadonlySet<Var> {
  return new Set([...set, v]);
}

function uniqueVars(vs: readonly Var[]): Var[] {
  return [...new Set(vs)];
}

function rebuilt<S extends Stmt & { body: Stmt }>(s: S, body: Stmt): S {
  return body === s.body ? s : { ...s, body };
}

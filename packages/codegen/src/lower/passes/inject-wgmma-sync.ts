/**
 * `injectWgmmaSync`: the fences and waits around Hopper's asynchronous warpgroup MMAs
 * (`T.ptx.wgmma_mma_async_ss`, each followed by its `wgmma_commit_group` in the tensor intrinsic).
 * A wgmma reads its shared operands and writes its accumulator registers some time after it is
 * issued; consecutive wgmmas into one accumulator need nothing between them. So, in every
 * statement sequence of a kernel that issues wgmmas:
 * - `wgmma_fence()` goes before each run of statements that only issue wgmmas (a wgmma, its commit,
 *   or a loop of them), unless the run follows another such run: the registers and shared memory
 *   written by other instructions before it become visible to the wgmmas;
 * - `wgmma_wait_group(N, C, size, …)` goes before each barrier (the shared tiles the wgmmas read
 *   may be overwritten after it: the copies of a later pipeline stage), N the groups of the last
 *   run of wgmmas when nothing written until a later wait touches what they read (another version
 *   of a pipelined tile: ../util/wgmma-in-flight.ts proves it), else 0;
 * - `wgmma_wait_group(0, C, size, …)` goes before each statement that touches an accumulator other
 *   than through a wgmma (the store after the k loop, the zero fill) or hides a barrier in a loop.
 *   The A fragment registers of the register-A form (`wgmma_mma_async_rs`) count as accumulators
 *   here: the tensor cores read them until the group retires, so the loads that refill them wait
 *   first, and the waits name them (the generated code then keeps their old values live until the wait).
 *   A statement that touches only A fragments, none of what the last run of wgmmas in its statement
 *   list reads (another version of them: a software pipeline over the k steps with
 *   `double_buffer_scope` on A's loads), waits for all but that run's N groups (`wait_group N`),
 *   once: the refill of k step s + 1 then runs while the wgmmas of step s do (../util/wgmma-fragments.ts).
 * A kernel (launch nest) that issues no wgmma, e.g. an operand pre-pass beside the GEMM kernel, is
 * left as it is. The waits name the accumulators, which the CUDA generator marks written after the wait. A wait
 * with nothing in flight returns at once. Waiting only at barriers keeps a stage's wgmmas (one per
 * 16 of k) in flight together instead of one at a time, and a pipelined tile's other versions let
 * the last stage's wgmmas stay in flight across the barriers of the next (as CUTLASS's
 * `warpgroup_wait<1>`).
 */
import {
  type AttrStmt,
  type Call,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  call,
  constantSize,
  evaluate,
  forEachExpr,
  forEachStmt,
  intImm,
  seq,
} from "@tessera/ir";
import { type Pass, cudaPass } from "../pass.js";
import { WGMMA_FENCE, WGMMA_WAIT_GROUP, isWgmmaMma, wgmmaMmaOperands } from "../util/warp-operands.js";
import { fragmentAccesses, fragmentOperands, fragmentReads, missesReads } from "../util/wgmma-fragments.js";
import { WgmmaInFlight, commitCount, isBarrier, onlyIssuesWgmma } from "../util/wgmma-in-flight.js";
import type { SharedAccess } from "../util/shared-versions.js";
import { isThreadExtent } from "../kernel/thread-env.js";

const PASS = "injectWgmmaSync";
const BARRIER = "tvm_storage_sync";
/** `wgmma.wait_group` takes 0 to 7. */
const MAX_PENDING = 7;

function calls(s: Stmt): Call[] {
  const found: Call[] = [];
  forEachExpr(s, (e) => {
    if (e.kind === "Call") found.push(e);
  });
  return found;
}

/** Statements that only scope others: their barriers and accumulator uses get their waits inside. */
const SCOPES: ReadonlySet<string> = new Set(["SeqStmt", "AttrStmt", "LetStmt", "Allocate", "DeclBuffer"]);

class WgmmaSync {
  private inFlight: WgmmaInFlight;
  /** Inside a launch nest that issues wgmmas (its outermost thread_extent was entered). */
  private inKernel = false;
  /** The accumulators whose allocation encloses the statement being rewritten. */
  private readonly allocated = new Set<Var>();
  /**
   * A wait_group 0 was placed and no wgmma issued since, on every path to here (scopes carry it;
   * loops and branches start and end without it): nothing is in flight, so a later wait would only
   * repeat it (and its asm, which orders memory, would keep the compiler from merging the shared
   * loads on either side, e.g. the hi and lo fragment loads of one element).
   */
  private drained = false;
  /**
   * The last run of wgmmas in the statement list being rewritten (its groups and the A fragment
   * elements it reads; cleared where loops and branches start and end, as `drained`), and whether a
   * wait already retired every older group.
   */
  private lastRun: { groups: number; reads: readonly SharedAccess[] | undefined; olderRetired: boolean } | undefined;
  /** The innermost loop variable around the statement being rewritten. */
  private loopVar: Var | undefined;

  constructor(
    body: Stmt,
    private readonly accumulators: ReadonlyMap<Var, number>,
    /** The accumulators that are A fragments of the register-A form (read, not written, by the wgmmas). */
    private readonly fragments: ReadonlySet<Var>,
  ) {
    this.inFlight = new WgmmaInFlight(body, (s) => this.touchesAccumulator(s));
  }

  /** The waits of one launch nest, analysed on its own (the loop and thread ranges of the other kernels do not widen its own). */
  private kernel(nest: AttrStmt): Stmt {
    this.inFlight = new WgmmaInFlight(nest, (s) => this.touchesAccumulator(s));
    this.inKernel = true;
    this.drained = false;
    this.lastRun = undefined;
    const body = this.block(nest.body);
    this.inKernel = false;
    return { ...nest, body };
  }

  /**
   * `wgmma.wait_group pending`, naming the accumulators allocated around it (one allocated inside a
   * loop, e.g. 3xTF32's chunk accumulator, is not named by a wait before its allocation: what it
   * held in the previous iteration was waited for before it was last used).
   */
  private wait(pending: number): Stmt {
    const named = [...this.accumulators].filter(([v]) => this.allocated.has(v));
    return evaluate(call("void", WGMMA_WAIT_GROUP, [intImm(pending), ...named.flatMap(([v, size]) => [v, intImm(size)])]));
  }

  /** Whether `s` reads or writes an accumulator (of `among`, by default all) other than as a wgmma's. */
  touchesAccumulator(s: Stmt, among: ReadonlySet<Var> | ReadonlyMap<Var, number> = this.accumulators): boolean {
    let touches = false;
    const note = (data: PrimExpr | undefined) => {
      if (data?.kind === "Var" && among.has(data)) touches = true;
    };
    forEachStmt(s, (x) => {
      if (x.kind === "BufferStore") note(x.buffer.data);
    });
    forEachExpr(s, (e) => {
      if (e.kind === "BufferLoad") note(e.buffer.data);
      if (e.kind === "Call" && !isWgmmaMma(e.op)) for (const a of e.args) note(a);
    });
    return touches;
  }

  stmt(s: Stmt): Stmt {
    switch (s.kind) {
      case "SeqStmt":
        return this.sequence(s.seq);
      case "For":
      case "While":
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt": {
        if (!this.inKernel && isThreadExtent(s)) {
          // A launch nest: one without wgmmas (another kernel of the function) keeps its barriers as they are.
          return calls(s).some((c) => isWgmmaMma(c.op)) ? this.kernel(s) : s;
        }
        const allocates = s.kind === "Allocate" && this.accumulators.has(s.buffer.data);
        if (allocates) this.allocated.add(s.buffer.data);
        const loop = s.kind === "For" || s.kind === "While";
        const outerLoopVar = this.loopVar;
        if (loop) this.forget();
        if (s.kind === "For") this.loopVar = s.loopVar;
        const body = this.block(s.body);
        if (loop) this.forget();
        this.loopVar = outerLoopVar;
        if (allocates) this.allocated.delete(s.buffer.data);
        return body === s.body ? s : { ...s, body };
      }
      case "IfThenElse": {
        this.forget();
        const thenCase = this.block(s.thenCase);
        this.forget();
        const elseCase = s.elseCase === undefined ? undefined : this.block(s.elseCase);
        this.forget();
        return { ...s, thenCase, elseCase };
      }
      default:
        return s;
    }
  }

  /** Where control flow joins or repeats: nothing known of what is in flight. */
  private forget(): void {
    this.drained = false;
    this.lastRun = undefined;
  }

  /**
   * The wait before `s`, which touches wgmma registers other than through a wgmma: none where it
   * touches only A fragments that the last run does not read and an earlier such wait retired the
   * rest; `wait_group N` (the run's groups) where it has not; else `wait_group 0`.
   */
  private waitBeforeRegisterAccess(s: Stmt, waitFor: (pending: number) => Stmt[]): Stmt[] {
    const run = this.lastRun;
    const touchesOnlyFragments = run?.reads !== undefined && [...this.accumulators.keys()].every((v) => this.fragments.has(v) || !this.mentions(s, v));
    const accesses = touchesOnlyFragments ? fragmentAccesses(s, this.fragments) : undefined;
    if (
      this.drained ||
      run?.reads === undefined ||
      run.groups > MAX_PENDING ||
      accesses === undefined ||
      !missesReads(accesses, run.reads, this.loopVar, this.inFlight.ranges)
    )
      return waitFor(0);
    if (run.olderRetired) return [];
    run.olderRetired = true;
    return [this.wait(run.groups)];
  }

  /** Whether `s` reads or writes the register array `data` other than as a wgmma's operand. */
  private mentions(s: Stmt, data: Var): boolean {
    return this.touchesAccumulator(s, new Set([data]));
  }

  /** The body of a compound statement: a sequence, even of one statement (a loop of one barrier). */
  private block(s: Stmt): Stmt {
    return s.kind === "SeqStmt" ? this.sequence(s.seq) : this.sequence([s]);
  }

  /** A statement with no statements inside but itself (a store, an evaluated call). */
  private isLeaf(s: Stmt): boolean {
    return s.kind === "BufferStore" || s.kind === "Evaluate";
  }

  /** `s` issues wgmmas: it starts the last run, or continues it (`continues`: the statement before it issued too). */
  private noteRun(s: Stmt, continues: boolean): void {
    const groups = commitCount(s);
    const reads = fragmentReads([s]);
    const run = continues ? this.lastRun : undefined;
    if (groups === undefined || reads === undefined || (continues && run?.reads === undefined)) {
      this.lastRun = { groups: 0, reads: undefined, olderRetired: false };
      return;
    }
    this.lastRun =
      run === undefined ? { groups, reads, olderRetired: false } : { groups: run.groups + groups, reads: [...run.reads!, ...reads], olderRetired: false };
  }

  private sequence(stmts: readonly Stmt[]): Stmt {
    const out: Stmt[] = [];
    let previousIssues = false;
    const waitFor = (pending: number): Stmt[] => {
      if (this.drained) return [];
      this.drained = pending === 0;
      return [this.wait(pending)];
    };
    for (const s of stmts) {
      const issues = onlyIssuesWgmma(s);
      if (issues) {
        if (!previousIssues) out.push(evaluate(call("void", WGMMA_FENCE, [])));
        out.push(s);
        this.drained = false;
        this.noteRun(s, previousIssues);
      } else if (isBarrier(s)) {
        const pending = this.inFlight.pending.get(s) ?? 0;
        out.push(...waitFor(pending), s);
        if (this.lastRun !== undefined && pending !== this.lastRun.groups) this.lastRun.olderRetired = false;
      } else if (!calls(s).some((c) => isWgmmaMma(c.op) || c.op === BARRIER) && !this.touchesAccumulator(s)) {
        out.push(s);
      } else if (!calls(s).some((c) => isWgmmaMma(c.op) || c.op === BARRIER) && this.isLeaf(s)) {
        out.push(...this.waitBeforeRegisterAccess(s, waitFor), s);
      } else if (SCOPES.has(s.kind) || calls(s).some((c) => isWgmmaMma(c.op))) {
        out.push(this.stmt(s));
      } else {
        // A loop or branch with a barrier or an accumulator access but no wgmma: one wait before it covers them.
        out.push(...waitFor(0), s);
      }
      previousIssues = issues;
    }
    return seq(out);
  }
}

export function injectWgmmaSync(func: PrimFunc): PrimFunc {
  // The register arrays the wgmmas read (and write) asynchronously: accumulators and register A fragments.
  const data = new Set<Var>();
  forEachExpr(func.body, (e) => {
    if (e.kind !== "Call") return;
    for (const i of wgmmaMmaOperands(e.op)?.registers ?? []) {
      const c = e.args[i];
      if (c?.kind === "Var") data.add(c);
    }
  });
  if (data.size === 0) return func;
  const accumulators = new Map<Var, number>();
  forEachStmt(func.body, (s) => {
    if (s.kind === "Allocate" && data.has(s.buffer.data)) accumulators.set(s.buffer.data, constantSize(s.buffer) ?? 0);
  });
  return { ...func, body: new WgmmaSync(func.body, accumulators, fragmentOperands(func.body)).stmt(func.body) };
}

export const injectWgmmaSyncPass: Pass = cudaPass(PASS, (func) => injectWgmmaSync(func));

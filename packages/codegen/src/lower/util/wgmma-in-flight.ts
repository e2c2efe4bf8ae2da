/**
 * How many committed wgmma groups the wait before each barrier may leave in flight (injectWgmmaSync).
 * A wgmma reads its shared operands until a `wgmma.wait_group` retires its group, so a wait at a
 * barrier may keep the last run of wgmmas (the N groups it commits: `wait_group N`) in flight only
 * if nothing written from that run up to the wait that retires it — the first barrier after the
 * next run, or any other use of the accumulator — touches what the run reads. Copies of a later
 * pipeline stage write another version of the shared tiles than the wgmmas read: shared-versions.ts
 * proves it, across loop iterations, from the versions' `(k + c) % V` terms.
 *
 * The analysis looks at the leaves of each statement list (scopes such as AttrStmt opened): a loop
 * body wraps around (the run may come from the iteration before), guarded by what runs before the
 * loop (nothing in flight) and after it (nothing written before the next wait). Anything it cannot
 * see through — a leaf that mixes wgmmas with other work, a commit count that is not a constant,
 * an access it cannot bound — gives 0 (wait for everything), as before.
 */
import { type Call, type PrimExpr, type Stmt, type Var, bytesOf, forEachExpr, forEachStmt } from "@tessera/ir";
import { type Interval, type SharedAccess, provablyDisjoint } from "./shared-versions.js";
import { WGMMA_COMMIT_GROUP, isWgmmaMma, wgmmaMmaOperands } from "./warp-operands.js";

const BARRIER = "tvm_storage_sync";
/** The 128B swizzle's atom: a swizzled operand is read across 8 rows of 128 bytes. */
const SWIZZLE_ATOM_BYTES = 1024;
/** `wgmma.wait_group` takes 0 to 7. */
const MAX_PENDING = 7;

/** Statements that only scope the ones inside them. */
const SCOPES: ReadonlySet<string> = new Set(["SeqStmt", "AttrStmt", "LetStmt", "Allocate", "DeclBuffer"]);

/** The statements of `s` with its scopes opened. */
export function leaves(s: Stmt, out: Stmt[] = []): Stmt[] {
  if (s.kind === "SeqStmt") for (const x of s.seq) leaves(x, out);
  else if (SCOPES.has(s.kind)) leaves((s as { body: Stmt }).body, out);
  else out.push(s);
  return out;
}

function callsIn(s: Stmt): Call[] {
  const found: Call[] = [];
  forEachExpr(s, (e) => {
    if (e.kind === "Call") found.push(e);
  });
  return found;
}

/** Whether `s` does nothing but issue wgmmas and commit them (possibly in loops). */
export function onlyIssuesWgmma(s: Stmt): boolean {
  let only = true;
  let any = false;
  forEachStmt(s, (x) => {
    if (x.kind === "Evaluate") {
      const v = x.value;
      if (v.kind === "Call" && (isWgmmaMma(v.op) || v.op === WGMMA_COMMIT_GROUP)) any = true;
      else only = false;
    } else if (x.kind !== "For" && !SCOPES.has(x.kind)) only = false;
  });
  return only && any;
}

export const isBarrier = (s: Stmt): boolean => s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === BARRIER;

/** The groups `s` commits, when a constant. */
export function commitCount(s: Stmt): number | undefined {
  switch (s.kind) {
    case "SeqStmt": {
      let n = 0;
      for (const x of s.seq) {
        const c = commitCount(x);
        if (c === undefined) return undefined;
        n += c;
      }
      return n;
    }
    case "For": {
      const c = commitCount(s.body);
      return s.extent.kind === "IntImm" && c !== undefined ? s.extent.value * c : undefined;
    }
    case "Evaluate":
      return s.value.kind === "Call" && s.value.op === WGMMA_COMMIT_GROUP ? 1 : 0;
    default:
      return SCOPES.has(s.kind) ? commitCount((s as { body: Stmt }).body) : undefined;
  }
}

/** `tvm_access_ptr(type_annotation(dtype), data, offset, extent, rw)` as an access, with its element size. */
function accessPtr(e: PrimExpr | undefined): { access: SharedAccess; bytes: number; rw: number } | undefined {
  if (e?.kind !== "Call" || e.op !== "tvm_access_ptr" || e.args.length !== 5) return undefined;
  const [type, data, offset, extent, rw] = e.args;
  if (type?.kind !== "Call" || data?.kind !== "Var" || extent?.kind !== "IntImm" || rw?.kind !== "IntImm" || offset === undefined) return undefined;
  return { access: { data, offset, extent: extent.value }, bytes: bytesOf(type.dtype), rw: rw.value };
}

interface Run {
  readonly groups: number;
  readonly reads: readonly SharedAccess[];
  /** Elements per swizzle atom of the operands. */
  readonly atom: number;
}

/** The run of wgmmas the statements `run` issue together (consecutive leaves that only issue wgmmas). */
function runOf(run: readonly Stmt[]): Run | undefined {
  let groups = 0;
  for (const s of run) {
    const n = commitCount(s);
    if (n === undefined) return undefined;
    groups += n;
  }
  if (groups > MAX_PENDING) return undefined;
  const reads: SharedAccess[] = [];
  let atom = 1;
  for (const c of run.flatMap(callsIn)) {
    for (const i of wgmmaMmaOperands(c.op)?.shared ?? []) {
      const p = accessPtr(c.args[i]);
      if (p === undefined) return undefined;
      reads.push(p.access);
      atom = Math.max(atom, SWIZZLE_ATOM_BYTES / p.bytes);
    }
  }
  return { groups, reads, atom };
}

/**
 * The writes of `s` to the buffers whose data is in `datas` (tvm_access_ptr with the write bit,
 * cp.async destinations, stores); undefined when `s` gives such a buffer to anything else.
 */
function writesTo(s: Stmt, datas: ReadonlySet<Var>): SharedAccess[] | undefined {
  const writes: SharedAccess[] = [];
  let named = 0;
  let accounted = 0;
  forEachExpr(s, (e) => {
    if (e.kind === "Var" && datas.has(e)) named++;
    if (e.kind !== "Call") return;
    if (e.op === "tvm_access_ptr") {
      const p = accessPtr(e);
      if (p === undefined || !datas.has(p.access.data)) return;
      accounted++;
      if ((p.rw & 2) !== 0) writes.push(p.access);
    } else if (e.op === "ptx_cp_async" && e.args[0]?.kind === "Var" && datas.has(e.args[0])) {
      // ptx_cp_async(dst, dst offset, src, src offset, bytes), in elements of the call's dtype.
      const [data, offset, , , bytes] = e.args;
      if (bytes?.kind !== "IntImm" || offset === undefined) return;
      accounted++;
      writes.push({ data: data as Var, offset, extent: Math.ceil(bytes.value / bytesOf(e.dtype)) });
    }
  });
  let unknownStore = false;
  forEachStmt(s, (x) => {
    if (x.kind !== "BufferStore" || !datas.has(x.buffer.data)) return;
    const index = x.indices.length === 1 ? x.indices[0]! : undefined;
    if (index?.kind === "Ramp" && index.stride.kind === "IntImm" && index.stride.value >= 0)
      writes.push({ data: x.buffer.data, offset: index.base, extent: (index.lanes - 1) * index.stride.value + 1 });
    else if (index !== undefined && index.kind !== "Ramp") writes.push({ data: x.buffer.data, offset: index, extent: 1 });
    else unknownStore = true;
  });
  return unknownStore || named > accounted ? undefined : writes;
}

/** The buffers the wgmmas in `s` read. */
function operandData(s: Stmt): Set<Var> {
  const datas = new Set<Var>();
  for (const c of callsIn(s)) {
    for (const i of wgmmaMmaOperands(c.op)?.shared ?? []) {
      const p = c.args[i];
      if (p?.kind === "Call") for (const a of p.args) if (a.kind === "Var") datas.add(a);
    }
  }
  return datas;
}

/** Where a statement list sits: a loop body wraps around; what runs before and after it. */
interface ListContext {
  /** The loop variable when the list is a loop's body. */
  readonly loopVar?: Var;
  /** No wgmma group is in flight when the list starts (its first execution). */
  readonly entryClear: boolean;
  /** Whatever follows the list's last execution retires every group before writing to shared memory. */
  readonly exitClear: boolean;
}

export class WgmmaInFlight {
  /** The pending groups the wait before each barrier statement may leave. */
  readonly pending = new Map<Stmt, number>();
  /** The range of each loop variable and thread index of the kernel (over all its loops of that variable). */
  readonly ranges = new Map<Var, Interval>();

  constructor(
    body: Stmt,
    private readonly touchesAccumulator: (s: Stmt) => boolean,
  ) {
    forEachStmt(body, (s) => {
      if (s.kind === "For" && s.min.kind === "IntImm" && s.extent.kind === "IntImm") this.widen(s.loopVar, s.min.value, s.min.value + s.extent.value - 1);
      else if (s.kind === "AttrStmt" && s.key === "thread_extent" && s.node !== undefined && s.value.kind === "IntImm")
        this.widen(s.node, 0, s.value.value - 1);
    });
    this.list(leaves(body), { entryClear: true, exitClear: true });
  }

  private widen(v: Var, lo: number, hi: number): void {
    const had = this.ranges.get(v);
    this.ranges.set(v, had === undefined ? { lo, hi } : { lo: Math.min(lo, had.lo), hi: Math.max(hi, had.hi) });
  }

  private hasWgmma(s: Stmt): boolean {
    return callsIn(s).some((c) => isWgmmaMma(c.op) || c.op === WGMMA_COMMIT_GROUP);
  }

  /** A leaf before which the pass waits for every group. */
  private retiresAll(s: Stmt): boolean {
    return !isBarrier(s) && !this.hasWgmma(s) && (this.touchesAccumulator(s) || callsIn(s).some((c) => c.op === BARRIER));
  }

  private list(items: readonly Stmt[], ctx: ListContext): void {
    for (const [i, s] of items.entries()) {
      if (isBarrier(s)) {
        const n = this.pendingAt(items, i, ctx);
        this.pending.set(s, Math.min(n, this.pending.get(s) ?? n));
      } else if (s.kind === "For" && this.hasWgmma(s) && !onlyIssuesWgmma(s)) {
        const exitClear = this.clearAfter(items, i, ctx, operandData(s));
        this.list(leaves(s.body), { loopVar: s.loopVar, entryClear: this.clearBefore(items, i, ctx), exitClear });
      } else if (s.kind === "IfThenElse" || s.kind === "While" || (s.kind === "For" && !onlyIssuesWgmma(s))) {
        for (const body of s.kind === "IfThenElse" ? [s.thenCase, s.elseCase] : [s.body])
          if (body !== undefined) this.list(leaves(body), { entryClear: false, exitClear: false });
      }
    }
  }

  /** Nothing in flight before `items[i]` on its first execution. */
  private clearBefore(items: readonly Stmt[], i: number, ctx: ListContext): boolean {
    for (let j = i - 1; j >= 0; j--) {
      if (this.hasWgmma(items[j]!)) return false;
      if (this.retiresAll(items[j]!)) return true;
    }
    return ctx.entryClear && ctx.loopVar === undefined;
  }

  /**
   * No write to `datas` after `items[i]` before the next barrier (whose wait, the first after a
   * statement that mixes wgmmas with others, retires every group). A wait for every group before
   * some other statement does not end the search: another thread's groups stay in flight until
   * that thread waits, and only a barrier after the waits orders its reads before the writes.
   */
  private clearAfter(items: readonly Stmt[], i: number, ctx: ListContext, datas: ReadonlySet<Var>): boolean {
    for (let j = i + 1; j < items.length; j++) {
      const s = items[j]!;
      if (isBarrier(s)) return true;
      if (this.hasWgmma(s) || writesTo(s, datas)?.length !== 0) return false;
    }
    return ctx.exitClear && ctx.loopVar === undefined;
  }

  /** The groups the wait before the barrier `items[i]` may leave pending. */
  private pendingAt(items: readonly Stmt[], i: number, ctx: ListContext): number {
    const n = items.length;
    // The last run before the barrier, `wraps` iterations back.
    let at = i - 1;
    let wraps = 0;
    for (; ; at--) {
      if (at < 0) {
        if (ctx.loopVar === undefined || !ctx.entryClear || wraps > 0) return 0;
        at = n;
        wraps = 1;
        continue;
      }
      if (wraps > 0 && at <= i) return 0;
      const s = items[at]!;
      if (onlyIssuesWgmma(s)) break;
      if (this.hasWgmma(s) || this.retiresAll(s)) return 0;
    }
    // The whole run: the issuing leaves before `at` too (a wgmma and its commit are two leaves).
    let start = at;
    while (start > 0 && onlyIssuesWgmma(items[start - 1]!)) start--;
    if (start === 0 && ctx.loopVar !== undefined && onlyIssuesWgmma(items[n - 1]!)) return 0;
    const run = runOf(items.slice(start, at + 1));
    if (run === undefined || run.groups === 0) return 0;
    const datas = new Set(run.reads.map((r) => r.data));
    // Every write from the run until a barrier whose wait retired it (in every thread): the first
    // barrier after the next run, or after a statement before which every group is retired.
    let iteration = 0;
    let nextRun = false;
    let retired = false;
    for (let j = at + 1; ; j++) {
      if (j === n) {
        // Past the end of a list that is no loop body: what follows is not looked at.
        if (ctx.loopVar === undefined) return 0;
        if (!ctx.exitClear || ++iteration > 2) return 0;
        j = -1;
        continue;
      }
      const s = items[j]!;
      if (isBarrier(s) && (nextRun || retired)) return run.groups;
      if (this.retiresAll(s)) retired = true;
      if (onlyIssuesWgmma(s)) {
        nextRun = true;
        continue;
      }
      if (this.hasWgmma(s)) return 0;
      const writes = writesTo(s, datas);
      if (writes === undefined) return 0;
      for (const w of writes) for (const r of run.reads) if (!provablyDisjoint(w, r, iteration, ctx.loopVar, this.ranges, run.atom)) return 0;
    }
  }
}

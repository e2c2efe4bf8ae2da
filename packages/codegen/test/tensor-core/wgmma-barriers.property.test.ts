/**
 * threadSync and injectWgmmaSync together on random pipelined kernels: a loop over k whose shared
 * tile has V versions, its body runs of wgmmas reading version (k + c) % V (through
 * `tvm_access_ptr` pointers whose ranges end inside the version, as the wgmma intrinsic's do) and
 * fills of version (k + c') % V by every thread, in any order and without barriers; threadSync
 * places the barriers (a pointer covers `[offset, offset + extent)`, so a fill of another version
 * needs none after the wgmmas), injectWgmmaSync the fences and waits. Executing the result (all
 * threads run the same statements) obeys the rules of asynchronous wgmma across the block:
 * - a `wgmma.fence` since the last other instruction before each wgmma;
 * - no shared element written while a group of the thread that wrote it still reads it;
 * - an element that a group read is written by another thread only after a barrier that follows
 *   the wait retiring the group (in every thread);
 * - a wgmma reads no element written since the last barrier (by another thread).
 */
import { type Call, type PrimExpr, type PrimFunc, type Stmt, type Var, evalIntExpr } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WGMMA_COMMIT_GROUP, WGMMA_FENCE, WGMMA_MMA_ASYNC, WGMMA_WAIT_GROUP } from "../../src/index.js";
import { injectWgmmaSync } from "../../src/lower/passes/inject-wgmma-sync.js";
import { waitCounts } from "./wgmma-sync-rules.js";
import { threadSyncPass } from "../../src/lower/passes/thread-sync.js";
import { CTX, parse } from "../passes-back/helpers.js";

/** Elements of one version: two 512-element (1024-byte) swizzle atoms, A's then B's. */
const SLOT = 1024;
const THREADS = 8;
const VERSIONS_MAX = 4;

type Item =
  | { readonly kind: "run"; readonly c: number; readonly wgmmas: number }
  | { readonly kind: "fill"; readonly c: number }
  | { readonly kind: "barrier" };

const version = (c: number, versions: number, inLoop: boolean): string => (inLoop ? `(k + ${c}) % ${versions} * ${SLOT}` : `${c % versions} * ${SLOT}`);

/** `tvm_access_ptr` to `extent` fp16 elements of S at `offset`, read. */
const ptr = (offset: string, extent: number): string => `T.tvm_access_ptr(T.type_annotation("float16"), S, ${offset}, ${extent}, 1)`;

function lines(item: Item, versions: number, inLoop: boolean, id: number): string[] {
  const base = version(item.kind === "barrier" ? 0 : item.c, versions, inLoop);
  switch (item.kind) {
    case "run":
      // k slices r of A (rows of 64, 16 wide: 15 rows and 16 elements on) and of B.
      return [
        `for r${id} in range(${item.wgmmas}):`,
        `    T.ptx.wgmma_mma_async_ss("m64n64k16", "fp16", "fp16", "fp32", 0, 1, 128, ${ptr(`${base} + r${id} * 16`, 15 * 32 + 16)}, 16, 1024, ${ptr(`${base} + 512 + r${id} * 128`, 128)}, 1024, 1024, C_warp, 0)`,
        "    T.ptx.wgmma_commit_group()",
      ];
    case "fill":
      return [`for j${id} in range(${SLOT / THREADS}):`, `    S_1[${base} + j${id} * ${THREADS} + threadIdx_x] = A[j${id} * ${THREADS} + threadIdx_x]`];
    case "barrier":
      return ['T.tvm_storage_sync("shared")'];
  }
}

function kernel(before: readonly Item[], body: readonly Item[], after: readonly Item[], versions: number, extent: number): PrimFunc {
  let id = 0;
  const block = (items: readonly Item[], inLoop: boolean, indent: string) => items.flatMap((it) => lines(it, versions, inLoop, id++).map((l) => indent + l));
  return parse(
    [
      "@T.prim_func",
      `def main(A: T.Buffer((${SLOT},), "float16")):`,
      '    T.func_attr({"global_symbol": "main"})',
      '    blockIdx_x = T.launch_thread("blockIdx.x", 1)',
      `    S = T.allocate([${VERSIONS_MAX * SLOT}], "float16", "shared.dyn")`,
      `    S_1 = T.Buffer((${VERSIONS_MAX * SLOT},), "float16", data=S, scope="shared.dyn")`,
      '    C_warp = T.allocate([32], "float32", "local")',
      `    threadIdx_x = T.launch_thread("threadIdx.x", ${THREADS})`,
      ...block(before, false, "    "),
      `    for k in range(${extent}):`,
      ...block(body, true, "        "),
      ...block(after, false, "    "),
    ].join("\n"),
  );
}

type Span = readonly [number, number];
type Event =
  | { readonly kind: "wgmma"; readonly reads: readonly Span[] }
  | { readonly kind: "write"; readonly at: Span }
  | { readonly kind: "wait"; readonly pending: number }
  | { readonly kind: "fence" | "barrier" | "commit" | "other" };

/** The value of `e` under `env`; throws when a variable is unbound. */
function indexValue(e: PrimExpr, env: ReadonlyMap<Var, number>): number {
  const v = evalIntExpr(e, env);
  if (v === undefined) throw new Error("trace: an index with an unbound variable");
  return v;
}

const spanOf = (p: PrimExpr, env: ReadonlyMap<Var, number>): Span => {
  const c = p as Call;
  const first = indexValue(c.args[2]!, env);
  return [first, first + indexValue(c.args[3]!, env) - 1];
};

/** threadIdx.x, once the trace has entered its launch. */
let threadIdx: Var | undefined;

/** The events of executing `s`; a store's elements are those of every thread. */
function trace(s: Stmt, out: Event[] = [], env: Map<Var, number> = new Map()): Event[] {
  switch (s.kind) {
    case "SeqStmt":
      for (const x of s.seq) trace(x, out, env);
      return out;
    case "For":
      for (let i = 0; i < indexValue(s.extent, env); i++) trace(s.body, out, new Map(env).set(s.loopVar, i));
      return out;
    case "AttrStmt":
      if (s.key === "thread_extent" && s.node !== undefined) {
        if (indexValue(s.value, env) === THREADS) threadIdx = s.node;
        return trace(s.body, out, new Map(env).set(s.node, 0));
      }
      return trace(s.body, out, env);
    case "Allocate":
    case "DeclBuffer":
      return trace(s.body, out, env);
    case "BufferStore": {
      const tx = threadIdx;
      if (tx === undefined) throw new Error("trace: a store outside the thread launch");
      const at = (t: number) => indexValue(s.indices[0]!, new Map(env).set(tx, t));
      out.push({ kind: "write", at: [at(0), at(THREADS - 1)] });
      return out;
    }
    case "Evaluate": {
      const v = s.value as Call;
      if (v.op === WGMMA_MMA_ASYNC) out.push({ kind: "wgmma", reads: [spanOf(v.args[7]!, env), spanOf(v.args[10]!, env)] });
      else if (v.op === WGMMA_WAIT_GROUP) out.push({ kind: "wait", pending: indexValue(v.args[0]!, env) });
      else out.push({ kind: v.op === WGMMA_FENCE ? "fence" : v.op === WGMMA_COMMIT_GROUP ? "commit" : v.op === "tvm_storage_sync" ? "barrier" : "other" });
      return out;
    }
    default:
      throw new Error(`unexpected ${s.kind}`);
  }
}

const overlaps = (a: Span, b: Span): boolean => a[0] <= b[1] && b[0] <= a[1];

/** The first rule the trace breaks, or undefined. */
function broken(events: readonly Event[]): string | undefined {
  let inFlight: Span[][] = [];
  let open: Span[] = [];
  /** Reads of retired groups, with the event that retired them. */
  const retired: { reads: Span[]; at: number }[] = [];
  const writes: { at: Span; index: number }[] = [];
  let fenced = false;
  let lastBarrier = -1;
  for (const [i, e] of events.entries()) {
    switch (e.kind) {
      case "fence":
        fenced = true;
        break;
      case "wgmma":
        if (!fenced) return `event ${i}: a wgmma without a fence since the last other instruction`;
        for (const r of e.reads) {
          const w = writes.find((x) => x.index > lastBarrier && overlaps(x.at, r));
          if (w !== undefined) return `event ${i}: a wgmma reads [${r}], written at event ${w.index} with no barrier since`;
        }
        open.push(...e.reads);
        break;
      case "commit":
        inFlight.push(open);
        open = [];
        break;
      case "wait": {
        const keep = e.pending === 0 ? [] : inFlight.slice(-e.pending);
        for (const g of inFlight.slice(0, inFlight.length - keep.length)) retired.push({ reads: g, at: i });
        inFlight = keep;
        break;
      }
      case "barrier":
        lastBarrier = i;
        fenced = false;
        break;
      case "write":
        for (const g of [...inFlight, open])
          if (g.some((r) => overlaps(r, e.at))) return `event ${i}: a write of [${e.at}] while a wgmma group in flight reads it`;
        for (const g of retired)
          if (g.at > lastBarrier && g.reads.some((r) => overlaps(r, e.at)))
            return `event ${i}: a write of [${e.at}] with no barrier since the wait (event ${g.at}) that retired a group reading it`;
        writes.push({ at: e.at, index: i });
        fenced = false;
        break;
      default:
        fenced = false;
    }
  }
  return undefined;
}

const synchronised = (f: PrimFunc): PrimFunc => injectWgmmaSync(threadSyncPass.run(f, CTX));

function barriersIn(s: Stmt): number {
  let n = 0;
  const visit = (x: Stmt): void => {
    if (x.kind === "SeqStmt") x.seq.forEach(visit);
    else if ("body" in x) visit((x as { body: Stmt }).body);
    else if (x.kind === "Evaluate" && x.value.kind === "Call" && x.value.op === "tvm_storage_sync") n++;
  };
  visit(s);
  return n;
}

function loopBody(f: PrimFunc): Stmt {
  let body: Stmt | undefined;
  const visit = (x: Stmt): void => {
    if (x.kind === "For" && x.loopVar.name === "k") body = x.body;
    else if (x.kind === "SeqStmt") x.seq.forEach(visit);
    else if ("body" in x) visit((x as { body: Stmt }).body);
  };
  visit(f.body);
  return body!;
}

const item = (versions: number): fc.Arbitrary<Item> =>
  fc.oneof(
    fc.record({ kind: fc.constant("run" as const), c: fc.integer({ min: 0, max: versions - 1 }), wgmmas: fc.integer({ min: 1, max: 3 }) }),
    fc.record({ kind: fc.constant("fill" as const), c: fc.integer({ min: 0, max: versions - 1 }) }),
    fc.constant({ kind: "barrier" as const }),
  );

const kernels = fc.integer({ min: 2, max: VERSIONS_MAX }).chain((versions) =>
  fc.record({
    versions: fc.constant(versions),
    extent: fc.integer({ min: 1, max: 5 }),
    before: fc.array(item(versions), { maxLength: 2 }),
    body: fc.array(item(versions), { minLength: 1, maxLength: 6 }),
    after: fc.array(item(versions), { maxLength: 2 }),
  }),
);

describe("threadSync and injectWgmmaSync on pipelined wgmma kernels", () => {
  it("place barriers, fences and waits so that no thread's write meets a wgmma's read, in any execution", () => {
    fc.assert(
      fc.property(kernels, ({ versions, extent, before, body, after }) => {
        const f = kernel(before, body, after, versions, extent);
        expect(broken(trace(synchronised(f).body))).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it("need one barrier per iteration when the fills after the wgmmas write the next version, and it catches the one missing", () => {
    // The wgmma GEMM's order: the stage's wgmmas (version k % 3), then the copies of version (k + 1) % 3.
    const f = kernel(
      [{ kind: "fill", c: 0 }],
      [
        { kind: "run", c: 0, wgmmas: 2 },
        { kind: "fill", c: 1 },
      ],
      [],
      3,
      4,
    );
    const after = synchronised(f);
    expect(barriersIn(loopBody(after))).toBe(1);
    expect(broken(trace(after.body))).toBeUndefined();
    // Without the loop's barrier, the wgmmas read what the fill before them wrote.
    const withoutBarrier = synchronised(
      kernel(
        [{ kind: "fill", c: 0 }],
        [
          { kind: "run", c: 0, wgmmas: 2 },
          { kind: "fill", c: 1 },
        ],
        [],
        3,
        4,
      ),
    );
    const stripped = stripLoopBarriers(withoutBarrier);
    expect(broken(trace(stripped.body))).toMatch(/no barrier since/);
  });

  it("wait for the groups before a barrier, not only before a loop holding one, when the loop writes what they read (regression)", () => {
    // A run, then a loop whose fill overwrites the version it read: the wait for every group that
    // injectWgmmaSync puts before the loop orders nothing for the other threads; the barrier
    // threadSync puts before the loop must wait instead (it kept the run in flight).
    const after = synchronised(kernel([{ kind: "run", c: 0, wgmmas: 1 }], [{ kind: "fill", c: 0 }, { kind: "barrier" }], [], 2, 1));
    expect(broken(trace(after.body))).toBeUndefined();
    expect(waitCounts(after.body)[0]).toBe(0);
  });

  it("put the barrier before fills of the next version that come before the wgmmas, keeping a stage in flight", () => {
    // The copies-first order: fill (k + 1) % 3, then the wgmmas of k % 3. The fill of iteration k
    // misses what the wgmmas of k − 1 read, but those of k − 2 read it; threadSync's loop-carried
    // check compares any two iterations (k of each side unrelated), so the barrier goes before the
    // fill (not only before the wgmmas, whose wait would then have to retire the stage before:
    // wait_group 0) and its wait keeps a stage in flight.
    const fillThenRun: Item[] = [
      { kind: "fill", c: 1 },
      { kind: "run", c: 0, wgmmas: 2 },
    ];
    const after = synchronised(kernel([{ kind: "fill", c: 0 }], fillThenRun, [], 3, 4));
    const body = loopBody(after);
    expect(barriersIn(body)).toBe(1);
    const leaves = body.kind === "SeqStmt" ? body.seq : [body];
    const isBarrier = (s: Stmt) => s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync";
    const isFill = (s: Stmt) => s.kind === "For" && s.loopVar.name.startsWith("j");
    expect(leaves.findIndex(isBarrier)).toBeLessThan(leaves.findIndex(isFill));
    expect(waitCounts(body)).toEqual([2]);
    expect(broken(trace(after.body))).toBeUndefined();
  });

  it("keep a barrier between the wgmmas and a fill of the version they read", () => {
    const after = synchronised(
      kernel(
        [{ kind: "fill", c: 0 }],
        [
          { kind: "run", c: 0, wgmmas: 2 },
          { kind: "fill", c: 0 },
        ],
        [],
        3,
        4,
      ),
    );
    expect(barriersIn(loopBody(after))).toBe(2);
    expect(broken(trace(after.body))).toBeUndefined();
  });
});

/** `f` with the barriers inside the k loop removed. */
function stripLoopBarriers(f: PrimFunc): PrimFunc {
  const strip = (s: Stmt, inLoop: boolean): Stmt => {
    if (s.kind === "SeqStmt")
      return {
        ...s,
        seq: s.seq
          .filter((x) => !(inLoop && x.kind === "Evaluate" && x.value.kind === "Call" && x.value.op === "tvm_storage_sync"))
          .map((x) => strip(x, inLoop)),
      };
    if (s.kind === "For") return { ...s, body: strip(s.body, inLoop || s.loopVar.name === "k") };
    if ("body" in s) return { ...s, body: strip((s as { body: Stmt }).body, inLoop) } as Stmt;
    return s;
  };
  return { ...f, body: strip(f.body, false) };
}

/**
 * injectWgmmaSync on random kernels: sequences and loops of wgmma runs (each wgmma committed),
 * barriers, accesses of the accumulator, other statements, and — in pipelined loops over k whose
 * shared tile has V versions — wgmma runs reading version (k + c) % V and copies or stores writing
 * version (k + c') % V after a barrier (as threadSync orders them). Executing the result (loops twice, pipelined loops 2–4 times) as a trace of
 * events obeys the PTX rules for asynchronous wgmma: a `wgmma.fence` since the last other
 * instruction before each wgmma; no group in flight at an access of the accumulator; no shared
 * element a group in flight reads written (`wgmma.wait_group N` retires all but the N most recent
 * groups); and removing what the pass inserted gives back the input.
 */
import {
  type Call,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  allocate,
  primFunc,
  bufferLoad,
  bufferStore,
  call,
  declBuffer,
  evalIntExpr,
  evaluate,
  floatImm,
  floormod,
  forLoop,
  intImm,
  mul,
  seq,
  stringImm,
  variable,
} from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WGMMA_COMMIT_GROUP, WGMMA_FENCE, WGMMA_MMA_ASYNC, WGMMA_WAIT_GROUP } from "../../src/index.js";
import { injectWgmmaSync } from "../../src/lower/passes/inject-wgmma-sync.js";
import { type WgmmaEvent, brokenWgmmaRule as broken, waitCounts, withWaits } from "./wgmma-sync-rules.js";

const acc = declBuffer("C_warp", [64], "float32", { scope: "local" });
const other = declBuffer("X_local", [8], "float32", { scope: "local" });
/** Elements of one version of the shared tile: two 1024-byte swizzle atoms of fp16, A then B. */
const SLOT = 1024;
const smem = declBuffer("S_shared", [4 * SLOT], "float16", { scope: "shared" });
const global = declBuffer("G", [4 * SLOT], "float16");

const ptr = (offset: PrimExpr, rw = 1): PrimExpr =>
  call("handle", "tvm_access_ptr", [call("float16", "type_annotation", []), smem.data, offset, intImm(SLOT / 2), intImm(rw)]);
/**
 * The version `(k + c) % versions` of the tile, or version `c` outside a pipelined loop; plain `k`
 * when that is the same (c ≡ 0 and k below `versions`), as the simplifier leaves it.
 */
const version = (k: { k: Var; extent: number } | undefined, c: number, versions: number): PrimExpr => {
  if (k === undefined) return mul(intImm(c % versions), intImm(SLOT));
  if (c % versions === 0 && k.extent <= versions) return mul(k.k, intImm(SLOT));
  return mul(floormod(add(k.k, intImm(c)), intImm(versions)), intImm(SLOT));
};
const wgmma = (base: PrimExpr = intImm(0)): Stmt =>
  seq([
    evaluate(
      call("void", WGMMA_MMA_ASYNC, [
        stringImm("m64n128k16"),
        stringImm("fp16"),
        stringImm("fp16"),
        stringImm("fp32"),
        intImm(0),
        intImm(1),
        intImm(128),
        ptr(base),
        intImm(16),
        intImm(1024),
        ptr(add(base, intImm(SLOT / 2))),
        intImm(1024),
        intImm(2048),
        acc.data,
        intImm(0),
      ]),
    ),
    evaluate(call("void", WGMMA_COMMIT_GROUP, [])),
  ]);
const barrier = (): Stmt => evaluate(call("int32", "tvm_storage_sync", [stringImm("shared")]));
const touchAcc = (): Stmt => bufferStore(acc, floatImm(0, "float32"), [intImm(3)]);
const elsewhere = (): Stmt => bufferStore(other, bufferLoad(other, [intImm(1)]), [intImm(0)]);

let loops = 0;
const loop = (body: Stmt): Stmt => forLoop(variable(`i${loops++}`), 2, body);
/** A whole version of the tile by 16-byte cp.async copies, or every 8th element of it by scalar stores. */
const fill = (base: PrimExpr, by: "copy" | "store"): Stmt => {
  const j = variable(`j${loops++}`);
  const body =
    by === "copy"
      ? evaluate(call("float16", "ptx_cp_async", [smem.data, add(base, mul(j, intImm(8))), global.data, intImm(0), intImm(16)]))
      : bufferStore(smem, floatImm(0, "float16"), [add(base, mul(j, intImm(8)))]);
  return forLoop(j, SLOT / 8, body);
};

/** Statements of a body inside a pipelined loop over `k` (undefined: none) whose tile has `versions` versions. */
function stmts(k: { k: Var; extent: number } | undefined, versions: number): fc.Arbitrary<Stmt[]> {
  const offset = fc.integer({ min: 0, max: 3 });
  return fc.letrec<{ s: Stmt; list: Stmt[] }>((tie) => ({
    s: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      offset.map((c) => wgmma(version(k, c, versions))),
      offset.map((c) => loop(wgmma(version(k, c, versions)))),
      fc.constant(null).map(barrier),
      fc.constant(null).map(touchAcc),
      fc.constant(null).map(elsewhere),
      // Shared writes follow a barrier, as threadSync places one between the wgmmas' reads and them (the pass waits at barriers).
      fc.tuple(offset, fc.constantFrom("copy" as const, "store" as const)).map(([c, by]) => seq([barrier(), fill(version(k, c, versions), by)])),
      tie("list").map((body) => loop(seq(body))),
    ),
    list: fc.array(tie("s"), { minLength: 1, maxLength: 5 }),
  })).list;
}

/** Random kernels: plain statements and software-pipelined loops over k (2–4 iterations, 2–4 versions). */
const stmt: fc.Arbitrary<Stmt> = fc
  .array(
    fc.oneof(
      stmts(undefined, 4),
      fc.tuple(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 2, max: 4 })).chain(([extent, versions]) => {
        const k = variable(`k${loops++}`);
        return stmts({ k, extent }, versions).map((body) => [forLoop(k, extent, seq(body))]);
      }),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((parts) => seq(parts.flat()));

/** `[first, last]` elements of `tvm_access_ptr(…, offset, extent, …)` under `env`. */
function span(p: PrimExpr, env: ReadonlyMap<Var, number>): [number, number] {
  const c = p as Call;
  const first = evalIntExpr(c.args[2]!, env)!;
  return [first, first + evalIntExpr(c.args[3]!, env)! - 1];
}

/** The events of executing `s`: plain loops twice, loops over k as often as their extent says. */
function trace(s: Stmt, out: WgmmaEvent[] = [], env: Map<Var, number> = new Map()): WgmmaEvent[] {
  switch (s.kind) {
    case "SeqStmt":
      for (const x of s.seq) trace(x, out, env);
      return out;
    case "For": {
      const times = s.loopVar.name.startsWith("k") || s.loopVar.name.startsWith("j") ? evalIntExpr(s.extent, env)! : 2;
      for (let i = 0; i < times; i++) trace(s.body, out, new Map(env).set(s.loopVar, i));
      return out;
    }
    case "Allocate":
      return trace(s.body, out, env);
    case "BufferStore":
      if (s.buffer.data === smem.data) {
        const at = evalIntExpr(s.indices[0]!, env)!;
        out.push({ kind: "write", at: [at, at] });
      } else out.push({ kind: s.buffer.data === acc.data ? "acc" : "other" });
      return out;
    case "Evaluate": {
      const v = s.value as Call;
      if (v.op === WGMMA_MMA_ASYNC) out.push({ kind: "wgmma", reads: [span(v.args[7]!, env), span(v.args[10]!, env)] });
      else if (v.op === WGMMA_WAIT_GROUP) out.push({ kind: "wait", pending: evalIntExpr(v.args[0]!, env)! });
      else if (v.op === "ptx_cp_async") {
        const at = evalIntExpr(v.args[1]!, env)!;
        out.push({ kind: "write", at: [at, at + 7] });
      } else
        out.push({
          kind: v.op === WGMMA_FENCE ? "fence" : v.op === WGMMA_COMMIT_GROUP ? "commit" : v.op === "tvm_storage_sync" ? "barrier" : "other",
        });
      return out;
    }
    default:
      throw new Error(`unexpected ${s.kind}`);
  }
}

/** `s` without the pass's fences and waits. */
function stripped(s: Stmt): Stmt {
  switch (s.kind) {
    case "SeqStmt":
      return seq(
        s.seq
          .filter((x) => !(x.kind === "Evaluate" && x.value.kind === "Call" && (x.value.op === WGMMA_FENCE || x.value.op === WGMMA_WAIT_GROUP)))
          .map(stripped),
      );
    case "For":
    case "Allocate":
      return { ...s, body: stripped(s.body) };
    default:
      return s;
  }
}

const kernel = (body: Stmt): PrimFunc => primFunc([], new Map(), allocate(acc, allocate(other, body)));

/** A pipelined loop over k (4 iterations, 3 versions): the copies of version (k + copyAhead) % 3, then a run of two wgmmas reading version k % 3. */
function pipelined(copyAhead: number): Stmt {
  const k = { k: variable("k"), extent: 4 };
  return forLoop(k.k, 4, seq([barrier(), fill(version(k, copyAhead, 3), "copy"), barrier(), loop(wgmma(version(k, 0, 3)))]));
}

describe("injectWgmmaSync", () => {
  it("fences before every wgmma, retires every group before an accumulator access and each one before a write of what it reads, in any execution", () => {
    fc.assert(
      fc.property(stmt, (body) => {
        const events = trace(injectWgmmaSync(kernel(body)).body);
        expect(broken(events)).toBeUndefined();
        // Without the pass the rules break wherever a wgmma runs.
        if (trace(body).some((e) => e.kind === "wgmma")) expect(broken(trace(body))).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the last run of wgmmas in flight across the barriers of a pipelined loop whose copies write another version", () => {
    const after = injectWgmmaSync(kernel(pipelined(1))).body;
    expect(waitCounts(after)).toEqual([2, 2]);
    expect(broken(trace(after))).toBeUndefined();
  });

  it("waits for every group when the copies overwrite the version the last run reads, and the rules catch a shallower wait", () => {
    // Copies of version (k + 2) % 3 = (k − 1) % 3: the tile the wgmmas of the iteration before read.
    const after = injectWgmmaSync(kernel(pipelined(2))).body;
    // One wait_group 0, at the first barrier: the second barrier follows it with no wgmma issued between, so it needs none.
    expect(waitCounts(after)).toEqual([0]);
    expect(broken(trace(after))).toBeUndefined();
    expect(broken(trace(withWaits(after, 2)))).toMatch(/a write of .* while a wgmma group in flight reads it/);
    // The same wait is right where the copies write another version.
    expect(broken(trace(withWaits(injectWgmmaSync(kernel(pipelined(1))).body, 2)))).toBeUndefined();
  });

  it("does not repeat a wait_group 0 until a wgmma is issued again, in the list or a scope inside it, but waits again in a loop and after it", () => {
    // wgmma; touch; touch; barrier: one wait before the first touch covers the rest.
    expect(waitCounts(injectWgmmaSync(kernel(seq([wgmma(), touchAcc(), allocate(other, touchAcc()), barrier()]))).body)).toEqual([0]);
    // A loop whose body issues after its touch: the touch waits in every iteration (the previous one's wgmma), and so does the barrier after the loop.
    const looped = injectWgmmaSync(kernel(seq([wgmma(), touchAcc(), loop(seq([touchAcc(), wgmma()])), barrier()]))).body;
    expect(waitCounts(looped)).toEqual([0, 0, 0]);
    expect(broken(trace(looped))).toBeUndefined();
  });

  it("only inserts: without its fences and waits the kernel is the input", () => {
    fc.assert(
      fc.property(stmt, (body) => {
        const after = injectWgmmaSync(kernel(body)).body;
        expect(stripped(after)).toEqual(allocate(acc, allocate(other, body)));
      }),
      { numRuns: 200 },
    );
  });

  it("waits naming the accumulator and its registers", () => {
    const after = injectWgmmaSync(kernel(seq([wgmma(), barrier()]))).body;
    const waits: Call[] = [];
    const visit = (s: Stmt): void => {
      if (s.kind === "SeqStmt") s.seq.forEach(visit);
      else if (s.kind === "Allocate") visit(s.body);
      else if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === WGMMA_WAIT_GROUP) waits.push(s.value);
    };
    visit(after);
    expect(waits).toHaveLength(1);
    const args = waits[0]!.args;
    expect(args[0]).toEqual(intImm(0));
    expect(args[1]).toBe(acc.data);
    expect(args[2]).toEqual(intImm(64));
  });
});

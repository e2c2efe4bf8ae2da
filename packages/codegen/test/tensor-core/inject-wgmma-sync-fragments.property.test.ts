/**
 * injectWgmmaSync with the register-A wgmma (`wgmma_mma_async_rs`): the tensor cores read A's
 * fragment registers until the group retires, so a store into them must wait for every group in
 * flight that reads what it stores, and only for those of the last run when it stores another
 * version (a software pipeline over the k steps double-buffers the fragments). Random kernels —
 * runs of register-A wgmmas reading one of the fragment's versions (in loops over k: version
 * (k + c) % V), stores of a version, accumulator accesses, barriers, loops — executed as a trace
 * obey the rules: no fragment register a group in flight reads is stored to, no accumulator access
 * with a group in flight, a fence before each wgmma.
 */
import {
  type Call,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  allocate,
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
  primFunc,
  seq,
  stringImm,
  variable,
} from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WGMMA_COMMIT_GROUP, WGMMA_FENCE, WGMMA_MMA_ASYNC_RS, WGMMA_WAIT_GROUP } from "../../src/index.js";
import { injectWgmmaSync } from "../../src/lower/passes/inject-wgmma-sync.js";
import { type Span, type WgmmaEvent, brokenWgmmaRule as broken, waitCounts, withWaits } from "./wgmma-sync-rules.js";

const acc = declBuffer("C_warp", [64], "float32", { scope: "local" });
/** Four versions of a lane's m64nNk8 tf32 A fragment (4 registers each). */
const FRAGMENT = 4;
const VERSIONS = 4;
const frag = declBuffer("A_warp", [VERSIONS * FRAGMENT], "float32", { scope: "local" });
const smem = declBuffer("B_shared", [4096], "float32", { scope: "shared" });

type K = { k: Var; extent: number } | undefined;
/** The first register of version `(k + c) % versions` (or `c` outside a loop over k). */
const slot = (k: K, c: number, versions: number): PrimExpr =>
  k === undefined ? intImm((c % versions) * FRAGMENT) : mul(floormod(add(k.k, intImm(c)), intImm(versions)), intImm(FRAGMENT));

const bPtr = (): PrimExpr => call("handle", "tvm_access_ptr", [call("float32", "type_annotation", []), smem.data, intImm(0), intImm(1024), intImm(1)]);
const wgmmaRs = (a: PrimExpr): Stmt =>
  seq([
    evaluate(
      call("void", WGMMA_MMA_ASYNC_RS, [
        stringImm("m64n128k8"),
        stringImm("tf32"),
        stringImm("tf32"),
        stringImm("fp32"),
        intImm(0),
        intImm(128),
        frag.data,
        a,
        bPtr(),
        intImm(16),
        intImm(1024),
        acc.data,
        intImm(0),
      ]),
    ),
    evaluate(call("void", WGMMA_COMMIT_GROUP, [])),
  ]);
/** The loads of one fragment version: four register stores. */
const load = (base: PrimExpr): Stmt => seq([0, 1, 2, 3].map((i) => bufferStore(frag, floatImm(i, "float32"), [add(base, intImm(i))])));
const barrier = (): Stmt => evaluate(call("int32", "tvm_storage_sync", [stringImm("shared")]));
const touchAcc = (): Stmt => bufferStore(acc, floatImm(0, "float32"), [intImm(3)]);

let loops = 0;
const loop = (body: Stmt): Stmt => forLoop(variable(`i${loops++}`), 2, body);

function stmts(k: K, versions: number): fc.Arbitrary<Stmt[]> {
  const c = fc.integer({ min: 0, max: 3 });
  return fc.letrec<{ s: Stmt; list: Stmt[] }>((tie) => ({
    s: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      c.map((x) => wgmmaRs(slot(k, x, versions))),
      c.map((x) => load(slot(k, x, versions))),
      fc.constant(null).map(barrier),
      fc.constant(null).map(touchAcc),
      tie("list").map((body) => loop(seq(body))),
    ),
    list: fc.array(tie("s"), { minLength: 1, maxLength: 6 }),
  })).list;
}

const stmt: fc.Arbitrary<Stmt> = fc
  .array(
    fc.oneof(
      stmts(undefined, VERSIONS),
      fc.tuple(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 2, max: VERSIONS })).chain(([extent, versions]) => {
        const k = variable(`k${loops++}`);
        return stmts({ k, extent }, versions).map((body) => [forLoop(k, extent, seq(body))]);
      }),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((parts) => seq(parts.flat()));

/** One register as a span. */
const registerSpan = (at: number): Span => [at, at];

function trace(s: Stmt, out: WgmmaEvent[] = [], env: Map<Var, number> = new Map()): WgmmaEvent[] {
  switch (s.kind) {
    case "SeqStmt":
      for (const x of s.seq) trace(x, out, env);
      return out;
    case "For": {
      const times = s.loopVar.name.startsWith("k") ? evalIntExpr(s.extent, env)! : 2;
      for (let i = 0; i < times; i++) trace(s.body, out, new Map(env).set(s.loopVar, i));
      return out;
    }
    case "Allocate":
      return trace(s.body, out, env);
    case "BufferStore":
      out.push(s.buffer.data === frag.data ? { kind: "write", at: registerSpan(evalIntExpr(s.indices[0]!, env)!) } : { kind: "acc" });
      return out;
    case "Evaluate": {
      const v = s.value as Call;
      if (v.op === WGMMA_MMA_ASYNC_RS) {
        const first = evalIntExpr(v.args[7]!, env)!;
        out.push({ kind: "wgmma", reads: [[first, first + FRAGMENT - 1]] });
      } else if (v.op === WGMMA_WAIT_GROUP) out.push({ kind: "wait", pending: evalIntExpr(v.args[0]!, env)! });
      else out.push({ kind: v.op === WGMMA_FENCE ? "fence" : v.op === WGMMA_COMMIT_GROUP ? "commit" : v.op === "tvm_storage_sync" ? "barrier" : "other" });
      return out;
    }
    default:
      throw new Error(`unexpected ${s.kind}`);
  }
}

const kernel = (body: Stmt): PrimFunc => primFunc([], new Map(), allocate(acc, allocate(frag, body)));

/** The k-step pipeline as injectSoftwarePipeline and the unroller leave it: load v0; then per step the wgmma of v(s % 2) and the loads of v((s + 1) % 2). */
function kStepPipeline(nextVersion: (s: number) => number): Stmt {
  const steps: Stmt[] = [load(intImm(0))];
  for (let s = 0; s < 4; s++) {
    steps.push(wgmmaRs(intImm((s % 2) * FRAGMENT)));
    if (s < 3) steps.push(load(intImm(nextVersion(s) * FRAGMENT)));
  }
  return seq([...steps, touchAcc()]);
}

describe("injectWgmmaSync with register-A fragments", () => {
  it("never stores to a fragment register that a group in flight reads, in any execution", () => {
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

  it("loads the next k step's version while the step's wgmma runs (wait_group 1), once per load run", () => {
    const after = injectWgmmaSync(kernel(kStepPipeline((s) => (s + 1) % 2))).body;
    // Before the first loads (nothing known in flight at the kernel's start) and the accumulator access: all; before the loads of steps 1–3: all but the step's group.
    expect(waitCounts(after)).toEqual([0, 1, 1, 1, 0]);
    expect(broken(trace(after))).toBeUndefined();
    // A shallower wait (keeping two groups) lets the loads overwrite what the step before still reads.
    expect(broken(trace(withWaits(after, 2)))).toMatch(/a write of .* while a wgmma group in flight reads it/);
  });

  it("waits for every group before loads into the version the last wgmma reads", () => {
    const after = injectWgmmaSync(kernel(kStepPipeline((s) => s % 2))).body;
    expect(waitCounts(after)).toEqual([0, 0, 0, 0, 0]);
    expect(broken(trace(after))).toBeUndefined();
    expect(broken(trace(withWaits(after, 1)))).toMatch(/a write of .* while a wgmma group in flight reads it/);
  });

  it("in a loop over k, loads of version (k + 1) % 2 after the wgmma of version k % 2 wait for all but its group", () => {
    const k = { k: variable("k"), extent: 4 };
    const body = forLoop(k.k, 4, seq([wgmmaRs(slot(k, 0, 2)), load(slot(k, 1, 2))]));
    const after = injectWgmmaSync(kernel(seq([load(intImm(0)), body, touchAcc()]))).body;
    expect(waitCounts(after)).toEqual([0, 1, 0]);
    expect(broken(trace(after))).toBeUndefined();
  });
});

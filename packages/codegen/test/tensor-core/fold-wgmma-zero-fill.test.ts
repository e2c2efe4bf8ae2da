/**
 * foldWgmmaZeroFill: the zero fill of a whole accumulator becomes scale-d 0 on the register-A wgmma
 * that next uses it, and stays where anything else (a read, a partial fill, a loop, a wgmma that
 * writes part of it) comes first. The CUDA helper of scale-d 0 writes the accumulator without reading it.
 * (lower runs the pass only with `foldWgmmaZeroFill: true`.)
 */
import {
  type Call,
  type Stmt,
  allocate,
  bufferLoad,
  bufferStore,
  call,
  declBuffer,
  evaluate,
  forEachExpr,
  forEachStmt,
  forLoop,
  add,
  intImm,
  mul,
  primFunc,
  seq,
  stringImm,
  variable,
} from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { MMA_FILL, WGMMA_COMMIT_GROUP, WGMMA_MMA_ASYNC_RS, wgmmaScaleD } from "../../src/index.js";
import { foldWgmmaZeroFill } from "../../src/lower/passes/fold-wgmma-zero-fill.js";
import { lower } from "../../src/index.js";
import { codegenCuda } from "../../src/cuda/index.js";
import { SMALL_WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmSchedule } from "@tessera/corpus";

const acc = declBuffer("C_rf", [64], "float32", { scope: "local" });
const frag = declBuffer("A_warp", [8], "float32", { scope: "local" });
const out = declBuffer("X_local", [4], "float32", { scope: "local" });
const smem = declBuffer("B_shared", [4096], "float32", { scope: "shared" });

/** The fill of `count` registers of C_rf from `first`, 8 at a time. */
const fill = (first = 0, count = 64): Stmt => {
  const j = variable("j");
  return forLoop(j, count / 8, evaluate(call("void", MMA_FILL, [intImm(8), acc.data, add(mul(j, intImm(8)), intImm(first))])));
};
const bPtr = () => call("handle", "tvm_access_ptr", [call("float32", "type_annotation", []), smem.data, intImm(0), intImm(1024), intImm(1)]);
const wgmma = (n = 128): Stmt =>
  evaluate(
    call("void", WGMMA_MMA_ASYNC_RS, [
      stringImm(`m64n${n}k8`),
      stringImm("tf32"),
      stringImm("tf32"),
      stringImm("fp32"),
      intImm(0),
      intImm(128),
      frag.data,
      intImm(0),
      bPtr(),
      intImm(16),
      intImm(1024),
      acc.data,
      intImm(0),
    ]),
  );
const commit = () => evaluate(call("void", WGMMA_COMMIT_GROUP, []));
const loadFragment = () => bufferStore(frag, bufferLoad(smem, [intImm(3)]), [intImm(0)]);
const barrier = () => evaluate(call("int32", "tvm_storage_sync", [stringImm("shared")]));

const run = (body: Stmt): Stmt => foldWgmmaZeroFill(primFunc([], new Map(), allocate(acc, allocate(frag, allocate(out, body))))).body;

function summary(s: Stmt): { fills: number; scaleD: number[] } {
  let fills = 0;
  const scaleD: number[] = [];
  forEachExpr(s, (e) => {
    if (e.kind !== "Call") return;
    if (e.op === MMA_FILL) fills++;
    if (e.op === WGMMA_MMA_ASYNC_RS) scaleD.push(wgmmaScaleD(e as Call));
  });
  return { fills, scaleD };
}

describe("foldWgmmaZeroFill", () => {
  it("folds a whole fill into the next wgmma (through other work and scopes): scale-d 0 on it alone", () => {
    const after = run(seq([fill(), barrier(), loadFragment(), seq([wgmma(), wgmma(), commit()])]));
    expect(summary(after)).toEqual({ fills: 0, scaleD: [0, 1] });
  });

  it.each<[string, Stmt]>([
    ["a read of the accumulator first", seq([fill(), bufferStore(out, bufferLoad(acc, [intImm(5)]), [intImm(0)]), wgmma()])],
    ["the wgmma in a loop", seq([fill(), forLoop(variable("s"), 2, wgmma())])],
    ["half of the accumulator filled", seq([fill(0, 32), wgmma()])],
    ["a wgmma writing half of it (m64n64k8: 32 registers)", seq([fill(), wgmma(64)])],
    ["no use after the fill in its list", seq([fill(), barrier()])],
  ])("keeps the fill with %s", (_, body) => {
    expect(summary(run(body)).fills).toBe(1);
    expect(summary(run(body)).scaleD.every((d) => d === 1)).toBe(true);
  });

  it("3xTF32 with A's loads per k step, lowered with foldWgmmaZeroFill: no zero fill of the chunk accumulator left, scale-d 0 on the first wgmma of each stage; the CUDA helper writes the accumulator without reading it", () => {
    const module = lower(wgmmaTf32x3GemmSchedule(128, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100", { foldWgmmaZeroFill: true });
    const gemm = module.kernels.at(-1)!;
    const fills: string[] = [];
    forEachStmt(gemm.body, (s) => {
      if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === MMA_FILL && s.value.args[1]?.kind === "Var") fills.push(s.value.args[1].name);
    });
    expect(fills).not.toContain("C_acc_rf");
    expect(summary(gemm.body).scaleD.filter((d) => d === 0).length).toBeGreaterThan(0);
    const source = codegenCuda(module).source;
    expect(source).toMatch(/tessera_wgmma_m64n64k8_f32_tf32_tf32_rs_zero_d\(float\* c/);
    expect(source).toMatch(/setp\.ne\.b32 p, 0, 0;[^"]*"\s*:\s*"=f"\(c\[0\]\)/);
    // Without the option (the default): the fill, and no scale-d 0.
    const kept = lower(wgmmaTf32x3GemmSchedule(128, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100");
    expect(summary(kept.kernels.at(-1)!.body).scaleD.every((d) => d === 1)).toBe(true);
    expect(codegenCuda(kept).source).not.toMatch(/_zero_d/);
  });
});

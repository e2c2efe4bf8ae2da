/**
 * The built-in mma.sync intrinsics: they parse, and blocks written in their warp-register layouts
 * (one 16×16 tile per warp) tensorize with them; a block in another layout is refused.
 */
import { parsePrimFunc, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { TensorIntrinMismatchError } from "../../src/error-catalogue.js";
import { MMA_INTRINSICS as M, Schedule, TensorIntrin } from "../../src/index.js";
import { expectScheduleError } from "../support.js";

/** Lane and register of element (i, j) of a 16×16 tile in ldmatrix / m16n8k16 layout. */
const lane16 = (i: string, j: string) => `4 * (${i} % 8) + ${j} % 8 // 2, 4 * (${j} // 8) + ${i} // 8 * 2 + ${j} % 2`;

/** One warp's tile: ldmatrix of A and B, zero fill, the MMA and the store, over warp-scope registers. */
function warpTile(opts: { inDtype: string; k: number; aAt: (i: string, k: string) => string; bAt: (k: string, j: string) => string; local: number }): string {
  const { inDtype, k, aAt, bAt, local } = opts;
  return `
@T.prim_func
def main(A: T.Buffer((16, ${k}), "${inDtype}"), B: T.Buffer((${k}, 16), "${inDtype}"), C: T.Buffer((16, 16), "float32")):
    A_shared = T.alloc_buffer((16, ${k}), "${inDtype}", scope="shared")
    A_warp = T.alloc_buffer((32, ${local}), "${inDtype}", scope="warp")
    B_warp = T.alloc_buffer((32, ${local}), "${inDtype}", scope="warp")
    C_warp = T.alloc_buffer((32, 8), scope="warp")
    for i, j in T.grid(16, ${k}):
        with T.block("A_shared"):
            vi, vj = T.axis.remap("SS", [i, j])
            A_shared[vi, vj] = A[vi, vj]
    for i, j in T.grid(16, ${k}):
        with T.block("A_warp"):
            vi, vj = T.axis.remap("SS", [i, j])
            A_warp[${aAt("vi", "vj")}] = A_shared[vi, vj]
    for i, j in T.grid(${k}, 16):
        with T.block("B_warp"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_warp[${bAt("vi", "vj")}] = B[vi, vj]
    for i, j in T.grid(16, 16):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            C_warp[${lane16("vi", "vj")}] = T.float32(0)
    for i, j, k in T.grid(16, 16, ${k}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C_warp[${lane16("vi", "vj")}] = C_warp[${lane16("vi", "vj")}] + ${inDtype === "float32" ? `A_warp[${aAt("vi", "vk")}] * B_warp[${bAt("vk", "vj")}]` : `T.Cast("float32", A_warp[${aAt("vi", "vk")}]) * T.Cast("float32", B_warp[${bAt("vk", "vj")}])`}
    for i, j in T.grid(16, 16):
        with T.block("C_store"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = C_warp[${lane16("vi", "vj")}]
`;
}

const FP16_TILE = parsePrimFunc(warpTile({ inDtype: "float16", k: 16, aAt: lane16, bAt: lane16, local: 8 }));
const TF32_TILE = parsePrimFunc(
  warpTile({
    inDtype: "float32",
    k: 8,
    aAt: (i, k) => `4 * (${i} % 8) + ${k} % 4, ${i} // 8 + ${k} // 4 * 2`,
    bAt: (k, j) => `4 * (${j} % 8) + ${k} % 4, ${k} // 4 + ${j} // 8 * 2`,
    local: 4,
  }),
);

function tensorizeAll(func: typeof FP16_TILE, intrins: Readonly<Record<string, string>>): Schedule {
  const sch = new Schedule(func, { debugMask: "all" });
  for (const [block, intrin] of Object.entries(intrins)) sch.tensorize(sch.getLoops(sch.getBlock(block))[0], intrin);
  return sch;
}

describe("mma.sync intrinsics", () => {
  it("are all built in and parse", () => {
    for (const name of Object.values(M)) expect(TensorIntrin.get(name).impl.params.length).toBeGreaterThan(0);
  });

  it("tensorize an fp16 warp tile: ldmatrix, fill, m16n8k16 MMA and store", () => {
    const sch = tensorizeAll(FP16_TILE, { A_warp: M.ldmatrixF16A, C_init: M.fillF32, C: M.mmaF16F16F32, C_store: M.storeF32Global });
    const text = printTVMScript(sch.func);
    expect(text).toContain('T.ptx_legacy.ldmatrix(T.bool(False), 4, ".b16"');
    expect(text.match(/T\.ptx_legacy\.mma\("m16n8k16", "row", "col", "fp16", "fp16", "fp32"/g)).toHaveLength(2);
    expect(text).toContain("T.cuda.mma_fill_legacy(8");
    expect(text).toContain("T.cuda.mma_store_legacy(16, 16");
  });

  it("tensorize a tf32 warp tile with two m16n8k8 MMAs", () => {
    const sch = tensorizeAll(TF32_TILE, { C: M.mmaTF32TF32F32 });
    expect(printTVMScript(sch.func).match(/T\.ptx_legacy\.mma\("m16n8k8", "row", "col", "tf32", "tf32", "fp32"/g)).toHaveLength(2);
  });

  it("refuse registers in another layout, naming the loop and the intrinsic", () => {
    const sch = new Schedule(FP16_TILE);
    const [i] = sch.getLoops(sch.getBlock("C"));
    expectScheduleError(
      sch,
      () => sch.tensorize(i, M.mmaTF32TF32F32),
      TensorIntrinMismatchError,
      `The loop "i" does not match the tensor intrinsic "${M.mmaTF32TF32F32}"`,
    );
    // ldmatrix reads shared memory; this tile's B comes straight from global memory.
    const [b] = sch.getLoops(sch.getBlock("B_warp"));
    expectScheduleError(
      sch,
      () => sch.tensorize(b, M.ldmatrixF16B),
      TensorIntrinMismatchError,
      "buffer B (float16, scope global) does not match buffer S of the description (float16, scope shared)",
    );
  });
});

/** A 16×8 tf32 A fragment loaded from shared memory with `value(x)` of each element. */
const tf32LoadA = (value: (x: string) => string) =>
  parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), W: T.Buffer((32, 4), "float32")):
    A_shared = T.alloc_buffer((16, 8), scope="shared")
    A_warp = T.alloc_buffer((32, 4), scope="warp")
    for i, j in T.grid(16, 8):
        with T.block("A_shared"):
            vi, vj = T.axis.remap("SS", [i, j])
            A_shared[vi, vj] = A[vi, vj]
    for i, k in T.grid(16, 8):
        with T.block("A_warp"):
            vi, vk = T.axis.remap("SS", [i, k])
            A_warp[4 * (vi % 8) + vk % 4, vi // 8 + vk // 4 * 2] = ${value("A_shared[vi, vk]")}
    for l, r in T.grid(32, 4):
        with T.block("W"):
            vl, vr = T.axis.remap("SS", [l, r])
            W[vl, vr] = A_warp[vl, vr]
`);

describe("tf32 fragment loads", () => {
  it("tensorize a rounded load of A into each lane's plain stores, residual and all", () => {
    const hi = new Schedule(tf32LoadA((x) => `T.tf32_round(${x})`));
    hi.tensorize(hi.getLoops(hi.getBlock("A_warp"))[0]!, M.loadTF32A);
    expect(printTVMScript(hi.func)).toContain("W_1[tx, 3] = T.tf32_round(S[tx // 4 + 8, tx % 4 + 4])");
    const lo = new Schedule(tf32LoadA((x) => `T.tf32_round(${x} - T.tf32_round(${x}))`));
    lo.tensorize(lo.getLoops(lo.getBlock("A_warp"))[0]!, M.loadTF32ALo);
    expect(printTVMScript(lo.func)).toContain("W_1[tx, 1] = T.tf32_round(S[tx // 4 + 8, tx % 4] - T.tf32_round(S[tx // 4 + 8, tx % 4]))");
  });

  it("refuse a load that does not round, naming the loop and the intrinsic", () => {
    const sch = new Schedule(tf32LoadA((x) => x));
    const [i] = sch.getLoops(sch.getBlock("A_warp"));
    expectScheduleError(
      sch,
      () => sch.tensorize(i!, M.loadTF32A),
      TensorIntrinMismatchError,
      `The loop "i" does not match the tensor intrinsic "${M.loadTF32A}"`,
    );
  });
});

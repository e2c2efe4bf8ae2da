/**
 * 3xTF32 on the tf32 wgmma (wgmmaTf32x3GemmSchedule / …ReluAddSchedule: pre-passes writing the
 * tf32 hi and lo parts of Bᵀ (and with `registerA: false` of A; by default A is split into hi and
 * lo in registers and read by the register-A wgmma), three m64nNk8 wgmmas per 8-wide k step into a chunk
 * accumulator added into the main one after each 32-k stage) in the simulator. The simulator runs
 * the three wgmmas as the hardware issues them, each summing its 8 k in turn, so the kernel's
 * float32 sums are those of the instruction order — lo·hi, hi·lo, hi·hi per k step — not the
 * function's per-k `(lo·hi + hi·lo) + hi·hi`: the kernel is checked bit for bit against that
 * order written out (`threeWgmmaOrder`, wgmma-tf32x3-order.ts), and against the executor within
 * float32 rounding of the sums. The gemm+ReLU+add at 256³ with WGMMA_TF32X3_PARAMS is
 * wgmma-tf32x3-gemm-large.test.ts's (the slow suite).
 */
import { WGMMA_MMA_ASYNC, WGMMA_MMA_ASYNC_RS, lower } from "@tessera/codegen";
import { SMALL_WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmSchedule } from "@tessera/corpus";
import { forEachExpr, forEachStmt } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { run } from "./wgmma-tf32x3-order.js";

const N = 128;

describe("3xTF32 on the tf32 wgmma in the simulator", () => {
  it("gemm 128³, one warpgroup, no pipeline: the three-wgmma order bit for bit, the executor's within float32 rounding", () => {
    const r = run(lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100"), N, false, 3);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeGreaterThan(0);
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });

  it("A from shared memory (registerA: false, session 13's kernel): gemm 128³, the three-wgmma order bit for bit (256³: the -large file)", () => {
    const small = run(lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, registerA: false }), "nvidia/h100"), N, false, 3);
    expect(small).toEqual({ ...small, modelBits: 0, races: 0 });
  });

  it.each([
    { registerA: false, oneBPass: false, kernels: 5, op: WGMMA_MMA_ASYNC },
    { registerA: true, oneBPass: false, kernels: 3, op: WGMMA_MMA_ASYNC_RS },
    { registerA: true, oneBPass: true, kernels: 2, op: WGMMA_MMA_ASYNC_RS },
  ])(
    "issues three wgmmas per 8-wide k step in one committed group (registerA $registerA, oneBPass $oneBPass: $kernels kernels, $op)",
    ({ registerA, oneBPass, kernels, op }) => {
      const module = lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, registerA, oneBPass }), "nvidia/h100");
      const gemm = module.kernels.at(-1)!;
      let [wgmmas, commits] = [0, 0];
      forEachExpr(gemm.body, (e) => {
        if (e.kind === "Call" && (e.op === WGMMA_MMA_ASYNC || e.op === WGMMA_MMA_ASYNC_RS)) wgmmas += e.op === op ? 1 : 100;
        if (e.kind === "Call" && e.op === "ptx.wgmma_commit_group") commits++;
      });
      expect(module.kernels).toHaveLength(kernels);
      expect([wgmmas, commits]).toEqual([3, 1]);
    },
  );

  it("one pre-pass kernel writes B's hi and lo parts transposed from one read of B (a 32×32 shared tile per block)", () => {
    const module = lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100");
    const prepass = module.kernels[0]!;
    const [loaded, stored] = [new Map<string, number>(), new Set<string>()];
    forEachExpr(prepass.body, (e) => {
      if (e.kind === "BufferLoad") loaded.set(e.buffer.name, (loaded.get(e.buffer.name) ?? 0) + 1);
    });
    forEachStmt(prepass.body, (st) => {
      if (st.kind === "BufferStore") stored.add(st.buffer.name);
    });
    expect([...stored].sort()).toEqual(["B_hi", "B_lo", "B_shared"]);
    expect(loaded.get("B")).toBe(1);
  });
});

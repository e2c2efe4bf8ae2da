/**
 * 3xTF32 on the tf32 wgmma (wgmmaTf32x3GemmSchedule / …ReluAddSchedule: pre-passes writing the
 * tf32 hi and lo parts of A and of Bᵀ, three m64nNk8 wgmmas per 8-wide k step into a chunk
 * accumulator added into the main one after each 32-k stage) in the simulator. The simulator runs
 * the three wgmmas as the hardware issues them, each summing its 8 k in turn, so the kernel's
 * float32 sums are those of the instruction order — lo·hi, hi·lo, hi·hi per k step — not the
 * function's per-k `(lo·hi + hi·lo) + hi·hi`: the kernel is checked bit for bit against that
 * order written out (`threeWgmmaOrder`, wgmma-tf32x3-order.ts), and against the executor within
 * float32 rounding of the sums. The gemm+ReLU+add at 256³ with WGMMA_TF32X3_PARAMS is
 * wgmma-tf32x3-gemm-large.test.ts's (the slow suite).
 */
import { WGMMA_MMA_ASYNC, lower } from "@tessera/codegen";
import { SMALL_WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmSchedule } from "@tessera/corpus";
import { forEachExpr } from "@tessera/ir";
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

  it("issues three wgmmas per 8-wide k step in one committed group", () => {
    const module = lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100");
    const gemm = module.kernels.at(-1)!;
    let wgmmas = 0;
    forEachExpr(gemm.body, (e) => {
      if (e.kind === "Call" && e.op === WGMMA_MMA_ASYNC) wgmmas++;
    });
    expect(module.kernels).toHaveLength(5);
    expect(wgmmas).toBe(3);
  });
});

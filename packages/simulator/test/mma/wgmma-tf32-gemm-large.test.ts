/**
 * The tf32 wgmma GEMM (wgmmaTf32GemmSchedule) in the simulator at 256³, bit for bit the executor's
 * C: two warpgroups with a 3- or 4-stage cp.async pipeline, and WGMMA_TF32_PARAMS (128×256 tiles).
 * 256³ is 8 k stages of 32, so a 4-stage pipeline reaches its steady state, and the default tiles
 * (128×256) need a 256-wide C. In the slow suite (each 256³ simulation is 8× a 128³ one); the 128³ kernels,
 * the planted mistakes and the refusals are wgmma-tf32-gemm.test.ts's.
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import { WGMMA_TF32_PARAMS, type WgmmaTf32Params, tf32Gemm, wgmmaTf32GemmSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";

const TWO_WARPGROUPS: WgmmaTf32Params = { warpgroups: 2, n: 128, pipelineStages: 3 };

const lowered = (n: number, params: WgmmaTf32Params): LoweredModule => lower(wgmmaTf32GemmSchedule(n, params), "nvidia/h100");

describe("the tf32 wgmma GEMM in the simulator at 256³", () => {
  it("has the executor's bits at 256³ with two warpgroups and 3 or 4 cp.async stages", () => {
    for (const pipelineStages of [3, 4]) {
      const r = differingGemmBits(tf32Gemm(256), lowered(256, { ...TWO_WARPGROUPS, pipelineStages }), 5 + pipelineStages);
      expect(r, `${pipelineStages} stages`).toEqual({ ...r, differing: 0, races: 0 });
    }
  });

  it("has the executor's bits at 256³ with two warpgroups, 3 stages and A from registers (registerA)", () => {
    const r = differingGemmBits(tf32Gemm(256), lowered(256, { ...TWO_WARPGROUPS, registerA: true }), 11);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  });

  it("has the executor's bits at 256³ with WGMMA_TF32_PARAMS (128×256 tiles)", () => {
    const r = differingGemmBits(tf32Gemm(256), lowered(256, WGMMA_TF32_PARAMS), 13);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  });
});

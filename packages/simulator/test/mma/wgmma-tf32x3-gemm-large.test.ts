/**
 * 3xTF32 on the tf32 wgmma in the simulator at 256³: the gemm+ReLU+add with WGMMA_TF32X3_PARAMS
 * (two warpgroups, 3 cp.async stages), bit for bit the three-wgmma order and within float32
 * rounding of the executor (wgmma-tf32x3-order.ts). 256³ is 8 k stages of 32, so the 3-stage
 * pipeline reaches its steady state. In the slow suite (a 256³ simulation is 8× a 128³ one); the
 * 128³ gemm and the instruction count are wgmma-tf32x3-gemm.test.ts's.
 */
import { lower } from "@tessera/codegen";
import { WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmReluAddSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { run } from "./wgmma-tf32x3-order.js";

describe("3xTF32 on the tf32 wgmma in the simulator at 256³", () => {
  it("gemm+ReLU+add 256³ with WGMMA_TF32X3_PARAMS (two warpgroups, 3 cp.async stages: 8 k stages, the pipeline's steady state)", () => {
    const r = run(lower(wgmmaTf32x3GemmReluAddSchedule(256, WGMMA_TF32X3_PARAMS), "nvidia/h100"), 256, true, 5);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });

  it("A from shared memory (registerA: false, session 13's kernel): gemm+ReLU+add 256³, the three-wgmma order bit for bit", () => {
    const r = run(lower(wgmmaTf32x3GemmReluAddSchedule(256, { ...WGMMA_TF32X3_PARAMS, registerA: false }), "nvidia/h100"), 256, true, 5);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });
});

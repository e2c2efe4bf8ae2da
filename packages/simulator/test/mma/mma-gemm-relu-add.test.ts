/**
 * gemm+ReLU+add in fp16 with fp32 accumulation through ldmatrix + mma.sync, the epilogue in each
 * tile's store (`mmaGemmReluAddSchedule`), runs in the simulator with the executor's bits at 128³,
 * also software-pipelined (in `pnpm test:slow`).
 */
import { lower } from "@tessera/codegen";
import { SMALL_MMA_PARAMS, halfGemmReluAdd, mmaGemmReluAddSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";

describe("fp16 gemm+ReLU+add through mma.sync in the simulator", () => {
  for (const pipelineStages of [1, 2] as const) {
    it(`128³, ${pipelineStages === 2 ? "double-buffered with cp.async" : "one stage"}: D has the executor's bits`, () => {
      const module = lower(mmaGemmReluAddSchedule(128, { ...SMALL_MMA_PARAMS, pipelineStages }), "nvidia/a100");
      const r = differingGemmBits(halfGemmReluAdd(128, "float16").func, module, 9, 3);
      expect(r.differing).toBe(0);
      expect(r.races).toBe(0);
      // Not vacuous: ReLU zeroes about half the sums, C keeps the outputs apart.
      expect(r.distinct).toBeGreaterThan(5000);
    });
  }
});

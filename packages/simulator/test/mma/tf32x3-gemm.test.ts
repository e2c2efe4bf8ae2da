/**
 * The 3xTF32 GEMM (operands split into tf32 hi and lo parts on the load path, three m16n8k8 MMAs
 * per 8-column half into a big and a small accumulator, summed at the store) runs in the simulator
 * lane by lane and agrees bit for bit with the executor on the unscheduled function, also
 * software-pipelined and on random tilings; so does gemm+ReLU+add through 3xTF32, its epilogue in
 * each tile's store.
 */
import { lower } from "@tessera/codegen";
import { SMALL_TF32X3_PARAMS, tf32x3Gemm, tf32x3GemmReluAdd, tf32x3GemmReluAddSchedule, tf32x3GemmSchedule } from "@tessera/corpus";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";
import { fits, randomTiling } from "./random-tilings.js";

describe("the 3xTF32 mma.sync GEMM in the simulator", () => {
  it("128³: C has the executor's bits", () => {
    const r = differingGemmBits(tf32x3Gemm(128), lower(tf32x3GemmSchedule(128), "nvidia/a100"), 5);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
    expect(r.distinct).toBeGreaterThan(16000);
  });

  it("64³ with a double-buffered cp.async pipeline: the executor's bits, no race", () => {
    const module = lower(tf32x3GemmSchedule(64, { ...SMALL_TF32X3_PARAMS, pipelineStages: 2 }), "nvidia/a100");
    const r = differingGemmBits(tf32x3Gemm(64), module, 7);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  it("gemm+ReLU+add 64³, pipelined: D has the executor's bits", () => {
    const module = lower(tf32x3GemmReluAddSchedule(64, { ...SMALL_TF32X3_PARAMS, pipelineStages: 2 }), "nvidia/a100");
    const r = differingGemmBits(tf32x3GemmReluAdd(64), module, 3, 3);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
    expect(r.distinct).toBeGreaterThan(3000);
  });

  it("has the executor's bits at 64³ for every random tiling that fits", () => {
    fc.assert(
      fc.property(randomTiling, fc.integer({ min: 0, max: 1 << 20 }), (p, seed) => {
        fc.pre(fits(() => tf32x3GemmSchedule(64, p)));
        const r = differingGemmBits(tf32x3Gemm(64), lower(tf32x3GemmSchedule(64, p), "nvidia/a100"), seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 6 },
    );
  });
});

/**
 * The 3xTF32 GEMM (operands split into tf32 hi and lo parts on the load path, three m16n8k8 MMAs
 * per 8-column half into a chunk accumulator, added into the main accumulator after each chunk of
 * k, stored at the end) runs in the simulator lane by lane and agrees bit for bit with the executor
 * on the unscheduled function with the same chunk, also software-pipelined, with several chunks per
 * k stage or several k stages per chunk, and on random tilings; so does gemm+ReLU+add through 3xTF32, its epilogue in each tile's store.
 */
import { lower } from "@tessera/codegen";
import {
  SMALL_TF32X3_PARAMS,
  type Tf32x3GemmParams,
  tf32x3Chunk,
  tf32x3Gemm,
  tf32x3GemmReluAdd,
  tf32x3GemmReluAddSchedule,
  tf32x3GemmSchedule,
} from "@tessera/corpus";
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

  it("64³ with a double-buffered cp.async pipeline and two chunks per k stage: the executor's bits, no race", () => {
    const params: Tf32x3GemmParams = { ...SMALL_TF32X3_PARAMS, kTiles: 4, chunk: 16, pipelineStages: 2 };
    const r = differingGemmBits(tf32x3Gemm(64, 16), lower(tf32x3GemmSchedule(64, params), "nvidia/a100"), 7);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  it("gemm+ReLU+add 64³, pipelined, chunks of 8: D has the executor's bits", () => {
    const module = lower(tf32x3GemmReluAddSchedule(64, { ...SMALL_TF32X3_PARAMS, chunk: 8, pipelineStages: 2 }), "nvidia/a100");
    const r = differingGemmBits(tf32x3GemmReluAdd(64, 8), module, 3, 3);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
    expect(r.distinct).toBeGreaterThan(3000);
  });

  it("has the executor's bits at 64³ for every random tiling and chunk that fit", () => {
    const tiling = fc.tuple(randomTiling, fc.constantFrom(8, 16, 32)).map(([p, chunk]): Tf32x3GemmParams => ({ ...p, chunk }));
    fc.assert(
      fc.property(tiling, fc.integer({ min: 0, max: 1 << 20 }), (p, seed) => {
        fc.pre(fits(() => tf32x3GemmSchedule(64, p)));
        const r = differingGemmBits(tf32x3Gemm(64, tf32x3Chunk(p)), lower(tf32x3GemmSchedule(64, p), "nvidia/a100"), seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 6 },
    );
  });

  it("64³ with chunks of two pipelined k stages (the pipeline restarting at each chunk): the executor's bits, no race", () => {
    const params: Tf32x3GemmParams = { ...SMALL_TF32X3_PARAMS, chunk: 32, pipelineStages: 2 };
    const r = differingGemmBits(tf32x3Gemm(64, 32), lower(tf32x3GemmSchedule(64, params), "nvidia/a100"), 11);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  it("refuses a chunk that neither divides nor is a multiple of the k stage, naming both", () => {
    expect(() => tf32x3GemmSchedule(64, { ...SMALL_TF32X3_PARAMS, chunk: 24 })).toThrow(/chunk 24 .* k stage of 16/);
    expect(() => tf32x3GemmSchedule(64, { ...SMALL_TF32X3_PARAMS, chunk: 12 })).toThrow(/chunk 12/);
    expect(() => tf32x3GemmSchedule(64, { ...SMALL_TF32X3_PARAMS, chunk: 128 })).toThrow(/divides n = 64/);
  });
});

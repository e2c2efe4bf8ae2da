/**
 * The tf32 GEMM in the simulator on random tilings (in `pnpm test:slow`): warps, 16×16 tiles per
 * warp, 8-wide k tiles per stage, padding and the cp.async pipeline drawn at random, inputs seeded
 * at random; every schedule that fits 64³ has the executor's bits and no race.
 */
import { lower } from "@tessera/codegen";
import { type Tf32GemmParams, tf32Gemm, tf32GemmSchedule } from "@tessera/corpus";
import fc from "fast-check";
import { describe, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";

const N = 64;

const params = fc.record({
  warps: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(1, 2)),
  tilesPerWarp: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(1, 2)),
  kTiles: fc.constantFrom(1, 2, 4),
  padShared: fc.boolean(),
  pipelineStages: fc.constantFrom<1 | 2>(1, 2),
});

function fits(p: Tf32GemmParams): boolean {
  try {
    tf32GemmSchedule(N, p);
    return true;
  } catch (err) {
    if (err instanceof RangeError) return false;
    throw err;
  }
}

describe("the tf32 GEMM in the simulator, random tilings", () => {
  it("has the executor's bits at 64³ for every tiling that fits", () => {
    fc.assert(
      fc.property(params, fc.integer({ min: 0, max: 1 << 20 }), (p, seed) => {
        fc.pre(fits(p));
        const r = differingGemmBits(tf32Gemm(N), lower(tf32GemmSchedule(N, p), "nvidia/a100"), seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 8 },
    );
  });
});

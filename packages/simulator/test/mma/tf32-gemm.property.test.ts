/**
 * The tf32 GEMM in the simulator on random tilings (in `pnpm test:slow`): warps, 16×16 tiles per
 * warp, 8-wide k tiles per stage, padding, the cp.async pipeline (1 to 4 stages) and A's fragments
 * through ldmatrix or plain loads drawn at random, inputs seeded
 * at random; every schedule that fits 64³ has the executor's bits and no race.
 */
import { lower } from "@tessera/codegen";
import { tf32Gemm, tf32GemmSchedule } from "@tessera/corpus";
import fc from "fast-check";
import { describe, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";
import { fits, randomTiling } from "./random-tilings.js";

const N = 64;

describe("the tf32 GEMM in the simulator, random tilings", () => {
  it("has the executor's bits at 64³ for every tiling that fits", () => {
    fc.assert(
      fc.property(randomTiling, fc.boolean(), fc.integer({ min: 0, max: 1 << 20 }), (tiling, ldmatrixA, seed) => {
        const p = { ...tiling, ldmatrixA };
        fc.pre(fits(() => tf32GemmSchedule(N, p)));
        const r = differingGemmBits(tf32Gemm(N), lower(tf32GemmSchedule(N, p), "nvidia/a100"), seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 8 },
    );
  });
});

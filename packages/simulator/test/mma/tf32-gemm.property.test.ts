/**
 * The tf32 GEMM in the simulator on random tilings (in `pnpm test:slow`): warps, 16×16 tiles per
 * warp, 8-wide k tiles per stage, padding and the cp.async pipeline drawn at random, inputs seeded
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
      fc.property(randomTiling, fc.integer({ min: 0, max: 1 << 20 }), (p, seed) => {
        fc.pre(fits(() => tf32GemmSchedule(N, p)));
        const r = differingGemmBits(tf32Gemm(N), lower(tf32GemmSchedule(N, p), "nvidia/a100"), seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 8 },
    );
  });
});

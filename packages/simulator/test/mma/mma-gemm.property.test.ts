/**
 * The mma.sync GEMM in the simulator on random tilings (in `pnpm test:slow`): warps, 16×16 tiles
 * per warp, k tiles per stage, the shared layout (padded, plain or XOR-swizzled) and the cp.async pipeline drawn at random, inputs seeded at
 * random; every schedule that fits 64³ has the executor's bits and no race (3 and 4 stages put the
 * shared tiles in dynamic shared memory).
 */
import { lower } from "@tessera/codegen";
import { type MmaGemmParams, mmaGemmSchedule } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, it } from "vitest";
import { differingBits } from "./mma-gemm-bits.js";
import { randomSharedLayout } from "./random-tilings.js";

const N = 64;

const params: fc.Arbitrary<MmaGemmParams> = fc
  .record({
    warps: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(1, 2)),
    tilesPerWarp: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(1, 2)),
    kTiles: fc.constantFrom(1, 2),
    layout: randomSharedLayout,
    pipelineStages: fc.constantFrom(1, 2, 3, 4),
  })
  .map(({ layout, ...tiling }) => ({ ...tiling, ...layout }));

/** The schedule, or undefined when the tiling does not fit n (a RangeError naming why). */
function scheduleOrUndefined(p: MmaGemmParams): Schedule | undefined {
  try {
    return mmaGemmSchedule(N, p);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

describe("the mma.sync GEMM in the simulator, random tilings", () => {
  it("has the executor's bits at 64³ for every tiling that fits", () => {
    fc.assert(
      fc.property(params, fc.integer({ min: 0, max: 1 << 20 }), (p, seed) => {
        const sch = scheduleOrUndefined(p);
        fc.pre(sch !== undefined);
        const r = differingBits(lower(sch!, "nvidia/a100"), N, seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 8 },
    );
  });

  it("has the executor's bits at 64³ with XOR-swizzled shared tiles, for every tiling that fits", () => {
    fc.assert(
      fc.property(params, fc.integer({ min: 0, max: 1 << 20 }), (p, seed) => {
        const sch = scheduleOrUndefined({ ...p, padShared: false, swizzle: true });
        fc.pre(sch !== undefined);
        const r = differingBits(lower(sch!, "nvidia/a100"), N, seed);
        return r.differing === 0 && r.races === 0;
      }),
      { numRuns: 6 },
    );
  });
});

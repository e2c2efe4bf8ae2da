/**
 * Property: random configurations of the fast corpus schedule — tile shapes, virtual threads,
 * thread tiles, vector widths of the cooperative fetches and register slices, warp shapes, unroll
 * budgets, launch bounds, and random software-pipeline stages and orders of the k-chunk loop's
 * five statements — either lower and simulate exactly (race detector on, outputs poisoned, equal
 * to the sequential executor on the unscheduled function), or are rejected by
 * injectSoftwarePipeline with a LoweringError naming the loop. Nothing else may happen.
 */
import { type FastScheduleParams, REGISTER_PREFETCH_PIPELINE } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SMALL_TILE_SHAPE, simulatesExactly, validAt } from "./fast-schedule-exactness.js";

const N = 64;

const pipelineArb = fc.oneof(
  fc.constant(null),
  fc.constant(REGISTER_PREFETCH_PIPELINE),
  fc.record({
    stages: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 5, maxLength: 5 }),
    order: fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 5, maxLength: 5 }),
  }),
);

const paramsArb: fc.Arbitrary<FastScheduleParams> = fc.record({
  ...SMALL_TILE_SHAPE,
  pipeline: pipelineArb,
  minBlocksPerSM: fc.constantFrom(0, 1, 2),
  unrollMaxStep: fc.constantFrom(0, 16, 64, 512),
  unrollExplicit: fc.boolean(),
  warpCols: fc.constantFrom(0, 2, 4, 8),
});

const valid = (p: FastScheduleParams): boolean => validAt(N, p);

describe("random fast-schedule configurations", () => {
  it("lower and simulate exactly at 64³, or are rejected by injectSoftwarePipeline", () => {
    const original = gemmReluAdd(N).func;
    const outcomes = { simulated: 0, pipelined: 0, rejected: 0 };
    fc.assert(
      fc.property(paramsArb.filter(valid), fc.integer({ min: 1, max: 1000 }), (p, seed) => {
        const module = simulatesExactly(N, p, original, seed);
        if (module === undefined) {
          outcomes.rejected++;
          return;
        }
        outcomes.simulated++;
        if (p.pipeline !== null) outcomes.pipelined++;
      }),
      { numRuns: 40, seed: 29 },
    );
    // Not vacuous: most configurations run, pipelined ones among them, and some orders are refused.
    expect(outcomes.simulated).toBeGreaterThan(20);
    expect(outcomes.pipelined).toBeGreaterThan(8);
    expect(outcomes.rejected).toBeGreaterThan(0);
  }, 300_000);
});

/**
 * Property: random configurations of the fast schedule's asynchronous fetch (`fetch: "async"`) —
 * tile shapes, random stages and orders of the k-chunk loop's three statements (A copy, B copy,
 * compute) with the copies' stage asynchronous, padding, fetch orders, lane interleaving, warp-tile
 * placement, static or dynamic shared memory — either lower and simulate exactly at 64³ (races,
 * uninitialised reads and out-of-bounds accesses checked; a cp.async read before its wait lands
 * nothing, so a wrong wait count shows), or are rejected by injectSoftwarePipeline with a
 * LoweringError naming the loop. Nothing else may happen. The same knobs with the register fetch
 * (FAST_PARAMS's register-prefetch pipeline) too.
 */
import { lower } from "@tessera/codegen";
import { type FastScheduleParams, type PipelineAnnotation, REGISTER_PREFETCH_PIPELINE, fastSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatComparison } from "../src/index.js";
import { simulatesExactly, validAt } from "./fast-schedule-exactness.js";

const N = 64;

/** Both copies in one stage (one cp.async queue per thread), the compute 1–3 stages later. */
const asyncPipelineArb: fc.Arbitrary<PipelineAnnotation> = fc
  .record({
    copies: fc.constantFrom(0, 1),
    ahead: fc.integer({ min: 1, max: 3 }),
    order: fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 }),
  })
  .map(({ copies, ahead, order }) => ({ stages: [copies, copies, copies + ahead], order, asyncStages: [copies] }));

const paramsArb: fc.Arbitrary<FastScheduleParams> = fc.record({
  blockRows: fc.constantFrom(32, 64),
  blockCols: fc.constantFrom(32, 64),
  tileK: fc.constantFrom(4, 8, 16),
  threadRows: fc.constantFrom(2, 4),
  threadCols: fc.constantFrom(2, 4),
  vthreadRows: fc.constantFrom(1, 2),
  vthreadCols: fc.constantFrom(1, 2),
  vector: fc.constantFrom(1, 2, 4),
  pipeline: asyncPipelineArb,
  minBlocksPerSM: fc.constantFrom(0, 1),
  unrollMaxStep: fc.constantFrom(0, 64),
  unrollExplicit: fc.boolean(),
  warpCols: fc.constantFrom(2, 4, 8),
  fetch: fc.constant("async" as const),
  aPad: fc.constantFrom(0, 4),
  aFetchOrder: fc.constantFrom("thread-outer" as const, "thread-inner" as const),
  bFetchOrder: fc.constantFrom("thread-outer" as const, "thread-inner" as const),
  laneInterleave: fc.constantFrom(1, 2),
  subTilePlacement: fc.constantFrom("block" as const, "warp" as const),
  sharedScope: fc.constantFrom("shared" as const, "shared.dyn" as const),
});

/** The knobs beyond FAST_PARAMS's with the fetch through registers. */
const registerParamsArb: fc.Arbitrary<FastScheduleParams> = paramsArb.map((p) => ({
  ...p,
  fetch: "registers" as const,
  pipeline: REGISTER_PREFETCH_PIPELINE,
}));

const valid = (p: FastScheduleParams): boolean => validAt(N, p);

describe("random asynchronous fast-schedule configurations", () => {
  it("lower and simulate exactly at 64³, or are rejected by injectSoftwarePipeline", () => {
    const original = gemmReluAdd(N).func;
    const outcomes = { simulated: 0, rejected: 0, dynamic: 0, copiesAfterCompute: 0 };
    fc.assert(
      fc.property(paramsArb.filter(valid), fc.integer({ min: 1, max: 1000 }), (p, seed) => {
        const module = simulatesExactly(N, p, original, seed);
        if (module === undefined) {
          outcomes.rejected++;
          return;
        }
        outcomes.simulated++;
        if (module.kernels[0]!.launch.dynamicSharedBytes > 0) outcomes.dynamic++;
        const order = p.pipeline!.order;
        if (order[2]! < order[0]! && order[2]! < order[1]!) outcomes.copiesAfterCompute++;
      }),
      { numRuns: 20, seed: 31 },
    );
    // Not vacuous: most configurations run, dynamic shared memory and copies after the compute among them.
    expect(outcomes.simulated).toBeGreaterThan(16);
    expect(outcomes.dynamic).toBeGreaterThan(5);
    expect(outcomes.copiesAfterCompute).toBeGreaterThan(2);
  }, 120_000);

  it("with the fetch through registers: lane interleave, warp tiles, padding, fetch order and dynamic shared memory simulate exactly at 64³", () => {
    const original = gemmReluAdd(N).func;
    fc.assert(
      fc.property(registerParamsArb.filter(valid), fc.integer({ min: 1, max: 1000 }), (p, seed) => {
        const report = compareWithReference(lower(fastSchedule(N, p), "nvidia/h100"), original, { seed, rtol: 1e-4, atol: 1e-4 });
        expect(report.passed, formatComparison(report)).toBe(true);
        expect(report.simulation.uninitializedReadCount).toBe(0);
      }),
      { numRuns: 10, seed: 37 },
    );
  }, 120_000);
});

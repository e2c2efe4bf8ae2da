/**
 * Property: a random sample of the default CUDA space (fresh decisions, random seed) of a small
 * GEMM with epilogue, matmul, batched matmul or padded conv2d is either rejected by a postprocessor
 * with a reason, or lowers and — run in the GPU simulator with the race detector on and the
 * outputs poisoned — equals the sequential executor on the unscheduled function. Mutating a valid
 * sample (MutateTileSize, MutateGemmKnob, MutateTileShape) gives a trace that replays and simulates equal, or is
 * rejected with a reason.
 */
import { conv2d, gemmReluAdd, matmul, type PrimFunc } from "@tessera/ir";
import { RandomEngine } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Mutator, replayWithPostprocs } from "../../src/index.js";
import { MutateGemmKnob } from "../../src/mutator/mutate-gemm-knob.js";
import { MutateTileShape } from "../../src/mutator/mutate-tile-shape.js";
import { MutateTileSize } from "../../src/mutator/mutate-tile-size.js";
import { batchMatmul, checkSimulatedOrRejected, spaceOf } from "./helpers.js";

const WORKLOADS: Readonly<Record<string, () => PrimFunc>> = {
  gemmReluAdd: () => gemmReluAdd(64).func,
  matmul: () => matmul(64, 32, 48).func,
  batchMatmul: () => batchMatmul(2, 32, 32, 16),
  conv2d: () => conv2d({ batch: 1, inChannels: 4, outChannels: 16, height: 8, width: 8, kernel: 3, padding: 1 }).func,
};

/** The space of each workload, with TVM's low bound of 64 threads or none (small sizes rarely reach 64). */
const SPACES = new Map(
  Object.entries(WORKLOADS).flatMap(([name, make]) => {
    const func = make();
    return [1, 64].map((low) => [`${name}/${low}`, { func, ...spaceOf(func, { tiling: { threadExtentLow: low } }) }] as const);
  }),
);

describe("random samples of the default CUDA space", () => {
  it("are rejected with a reason, or simulate equal to the executor", () => {
    const tally = { simulated: 0, rejected: 0 };
    fc.assert(
      fc.property(fc.constantFrom(...SPACES.keys()), fc.integer({ min: 1, max: 1_000_000 }), (key, seed) => {
        const { func, ctx, gen, spaces } = SPACES.get(key)!;
        expect(spaces).toHaveLength(1);
        const out = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
        tally[checkSimulatedOrRejected(out, func, seed)]++;
      }),
      { numRuns: 18, seed: 11 },
    );
    // (Rejections with a reason are exercised by odd-shapes.property.test.ts: since the batch axis
    // stays whole at the grid level, these 18 samples are all valid.)
    expect(tally.simulated).toBeGreaterThan(6);
  }, 120_000);

  it("mutate into traces that replay and simulate equal, or are rejected with a reason", () => {
    const mutators: Mutator[] = [new MutateTileSize(), new MutateGemmKnob(), new MutateTileShape()];
    const tally = { simulated: 0, rejected: 0, unchanged: 0 };
    fc.assert(
      fc.property(
        fc.constantFrom(...[...SPACES.keys()].filter((k) => k.endsWith("/1"))),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.nat(2),
        (key, seed, which) => {
          const { func, ctx, gen, spaces } = SPACES.get(key)!;
          const sample = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
          if (!sample.ok) return;
          const mutated = mutators[which]!.apply(sample.sch.trace, new RandomEngine(seed), ctx);
          if (mutated === undefined) {
            tally.unchanged++;
            return;
          }
          const out = replayWithPostprocs(ctx, mutated, gen.postprocs, { seed });
          tally[checkSimulatedOrRejected(out, func, seed)]++;
        },
      ),
      { numRuns: 12, seed: 5 },
    );
    expect(tally.simulated).toBeGreaterThan(3);
  }, 120_000);
});

import { lower, target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { compareWithReference } from "@tessera/simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EvolutionarySearch, MemoryDatabase, ReplayTraceStrategy, ScheduleFnSpace, tuneContext, workloadOf } from "../../src/index.js";
import { mutateTile, tileGemm } from "./gemm-fixture.js";

const N = 32;

/** A complete GPU space: the gemm tiled with sampled tiles and bound, the epilogue fused and bound. */
function gpuSpace(sch: Schedule): void {
  tileGemm(sch, 4, 8);
  sch.computeInline(sch.getBlock("relu"));
  const add = sch.getBlock("add");
  const fused = sch.fuse(...sch.getLoops(add));
  const [blocks, threads] = sch.split(fused, [null, sch.sampleCategorical([32, 64, 128], [1, 1, 1])]);
  sch.bind(blocks, "blockIdx.x");
  sch.bind(threads, "threadIdx.x");
}

describe("samples handed out by a search", () => {
  it("lower and compute what the workload computes (simulated, property)", async () => {
    const original = gemmReluAdd(N).func;
    const h100 = target("nvidia/h100");
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000_000 }), async (seed) => {
        const ctx = tuneContext(workloadOf(original), h100, { seed });
        const space = new ScheduleFnSpace(gpuSpace, { mutators: [{ mutator: mutateTile, probability: 1 }] });
        const designSpaces = space.generateDesignSpace(ctx);
        // Random samples, and (evolutionary search with mutation prob. 1) mostly mutated ones.
        const strategies = [new ReplayTraceStrategy(), new EvolutionarySearch({ populationSize: 8, initMinUnmeasured: 4, geneticMutateProb: 1, epsGreedy: 0 })];
        for (const strategy of strategies) {
          strategy.preTuning(ctx, { maxTrials: 2, numTrialsPerIter: 2, designSpaces, space, database: new MemoryDatabase(), costModel: undefined });
          for (const c of (await strategy.generateMeasureCandidates(ctx))!) {
            const report = compareWithReference(lower(c.sch, h100), original, { seed });
            expect(report.passed, `${strategy.name}, seed ${seed}:\n${c.sch.trace.show()}`).toBe(true);
          }
        }
      }),
      { numRuns: 4 },
    );
  });
});

/**
 * Search quality on the gemm fixture's fake latencies, as means over seeds: whole tuning runs of
 * the evolutionary search against random search, and with and without neighbours of the best
 * programs. Half a minute of searching, so they run in `pnpm test:slow` (vitest.config.ts); the
 * mechanics of each strategy are tested in search-strategies.test.ts and neighbourhood.test.ts.
 */
import { describe, expect, it } from "vitest";
import { type CostModel, EvolutionarySearch, type MeasureCandidate, ReplayTraceStrategy } from "../../src/index.js";
import { BEST_FAKE_LATENCY, NearestNeighbourModel, fakeLatency, tuneWithFakeRunner } from "./gemm-fixture.js";

describe("EvolutionarySearch", () => {
  it("with a cost model, finds faster candidates than random search at equal trials (mean over seeds)", async () => {
    const seeds = [1, 2, 3, 4];
    const logBest = (xs: number[]) => xs.reduce((a, x) => a + Math.log(x / BEST_FAKE_LATENCY), 0) / xs.length;
    const random: number[] = [];
    const evolved: number[] = [];
    for (const seed of seeds) {
      random.push((await tuneWithFakeRunner(new ReplayTraceStrategy(), { seed, maxTrials: 48, numTrialsPerIter: 16 })).bestLatency);
      const out = await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 64 }), {
        seed,
        maxTrials: 48,
        numTrialsPerIter: 16,
        costModel: new NearestNeighbourModel(),
      });
      evolved.push(out.bestLatency);
    }
    expect(logBest(evolved)).toBeLessThan(logBest(random));
  });
});

describe("EvolutionarySearch neighbourShare", () => {
  /** Scores the slowest candidates highest: a model that has learned the opposite of the truth. */
  const backwards: CostModel = {
    name: "backwards",
    update: () => {},
    predict: (_ctx, cs: readonly MeasureCandidate[]) => cs.map((c) => fakeLatency(c.sch) * 1e4),
  };

  it("improves on the best program even when the cost model ranks backwards (mean over seeds)", async () => {
    const seeds = [1, 2, 3, 4, 5, 6];
    const logBest = async (share: number) => {
      let sum = 0;
      for (const seed of seeds) {
        const out = await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 32, neighbourShare: share }), {
          seed,
          maxTrials: 64,
          numTrialsPerIter: 16,
          costModel: backwards,
        });
        sum += Math.log(out.bestLatency);
      }
      return sum / seeds.length;
    };
    expect(await logBest(0.5)).toBeLessThan((await logBest(0)) - 0.1);
  });
});

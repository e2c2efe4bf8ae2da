/**
 * Hill climbing on the cost model (search/model-climb.ts): the starting points (one per launch
 * class), a step's choice, and the search's first batch under a model that knows the truth —
 * climbing never hands out a worse best program and finds a better one on some seeds.
 */
import { describe, expect, it } from "vitest";
import { type CostModel, EvolutionarySearch, type MeasureCandidate } from "../../src/index.js";
import type { Candidate } from "../../src/search/candidate-replayer.js";
import { type Scored, climbStarts, climbStep } from "../../src/search/model-climb.js";
import { fakeLatency, tuneWithFakeRunner } from "./gemm-fixture.js";

const scored = (name: string, score: number, launchClass?: string): Scored => ({ candidate: { hash: name, launchClass } as unknown as Candidate, score });
const names = (xs: readonly (Scored | undefined)[]) => xs.map((x) => x?.candidate.hash);

describe("model climb", () => {
  it("starts from the best of each launch class, unknown classes each their own", () => {
    const best = [scored("a", 9, "g1"), scored("b", 8, "g1"), scored("c", 7), scored("d", 6, "g2"), scored("e", 5), scored("f", 4, "g3")];
    expect(names(climbStarts(best, 4))).toEqual(["a", "c", "d", "e"]);
    expect(names(climbStarts(best, 10))).toEqual(["a", "c", "d", "e", "f"]);
    expect(climbStarts(best, 0)).toEqual([]);
  });

  it("steps to the best neighbour above the point, the first of equals, and stops where none is above", () => {
    const points = [scored("p", 5), scored("q", 5), scored("r", 5)];
    const next = climbStep(points, [[scored("p1", 6), scored("p2", 7), scored("p3", 7)], [scored("q1", 5), scored("q2", 4)], []]);
    expect(names(next)).toEqual(["p2", undefined, undefined]);
  });

  it("hands out a first batch no worse, and on some seeds better, under a model that knows the truth", async () => {
    const truth: CostModel = { name: "truth", update: () => {}, predict: (_ctx, cs: readonly MeasureCandidate[]) => cs.map((c) => 1 / fakeLatency(c.sch)) };
    const best = async (climb: number, seed: number) =>
      (
        await tuneWithFakeRunner(
          new EvolutionarySearch({ populationSize: 16, geneticNumIters: 1, epsGreedy: 0, neighbourShare: 0, climbStarts: climb, climbSteps: 3 }),
          {
            seed,
            maxTrials: 4,
            numTrialsPerIter: 4,
            costModel: truth,
          },
        )
      ).bestLatency;
    let better = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const [without, withClimb] = [await best(0, seed), await best(2, seed)];
      expect(withClimb).toBeLessThanOrEqual(without);
      if (withClimb < without) better++;
    }
    expect(better).toBeGreaterThan(0);
  }, 60_000);
});

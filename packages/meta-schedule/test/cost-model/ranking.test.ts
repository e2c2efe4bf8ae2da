/**
 * Ranking quality: samples of a course-style gemm space get a synthetic, deterministic run time
 * from an analytic model of their tile sizes (gemm-space.ts); the forest, trained on 60% of them
 * through the per-store features, must rank the held-out 40% far better than chance — the same
 * test fails with RandomModel.
 */
import { target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { beforeAll, describe, expect, it } from "vitest";
import { ForestModel, RandomModel, type RunnerResult, type MeasureCandidate, tuneContext, workloadOf } from "../../src/index.js";
import { type GemmTiles, sampleGemmSchedule, syntheticLatency } from "./gemm-space.js";
import { spearman } from "./rank-correlation.js";

const N = 2048;
const SAMPLES = 220;

interface Sample {
  readonly candidate: MeasureCandidate;
  readonly tiles: GemmTiles;
  readonly latency: number | undefined;
}

describe("ranking quality on a synthetic gemm benchmark", () => {
  const ctx = tuneContext(workloadOf(gemmReluAdd(N).func), target("nvidia/h100"), { seed: 7 });
  let train: Sample[] = [];
  let test: Sample[] = [];

  beforeAll(() => {
    const samples: Sample[] = [];
    for (let seed = 1; seed <= SAMPLES; seed++) {
      const { sch, tiles } = sampleGemmSchedule(N, seed);
      samples.push({ candidate: { sch, argsInfo: [] }, tiles, latency: syntheticLatency(N, tiles) });
    }
    const cut = Math.round(samples.length * 0.6);
    train = samples.slice(0, cut);
    test = samples.slice(cut).filter((s) => s.latency !== undefined);
  });

  const resultOf = (s: Sample): RunnerResult =>
    s.latency === undefined ? { ok: false, error: "too many threads or too much shared memory" } : { ok: true, runSecs: [s.latency] };

  function heldOutQuality(model: ForestModel | RandomModel): { rho: number; top10Recall: number } {
    model.update(
      ctx,
      train.map((s) => s.candidate),
      train.map(resultOf),
    );
    const scores = model.predict(
      ctx,
      test.map((s) => s.candidate),
    );
    const throughput = test.map((s) => 1 / s.latency!);
    const best = (xs: number[]) =>
      new Set(
        xs
          .map((x, k) => [x, k] as const)
          .sort((a, b) => b[0] - a[0])
          .slice(0, 10)
          .map(([, k]) => k),
      );
    const truth = best(throughput);
    const predicted = best(scores);
    return { rho: spearman(scores, throughput), top10Recall: [...predicted].filter((k) => truth.has(k)).length / 10 };
  }

  it("the benchmark is not trivial: latencies spread widely and some samples fail", () => {
    const lat = [...train, ...test].flatMap((s) => (s.latency === undefined ? [] : [s.latency]));
    expect(Math.max(...lat) / Math.min(...lat)).toBeGreaterThan(10);
    expect(train.some((s) => s.latency === undefined)).toBe(true);
    expect(test.length).toBeGreaterThanOrEqual(30);
  });

  it("the forest ranks held-out samples well (Spearman > 0.6, top-10 recall ≥ 0.5)", () => {
    const model = new ForestModel({ seed: 5 });
    const q = heldOutQuality(model);
    expect(model.numTrainings).toBe(1);
    expect(q.rho).toBeGreaterThan(0.6);
    expect(q.top10Recall).toBeGreaterThanOrEqual(0.5);
  });

  it("the random model does not (the test has power)", () => {
    const q = heldOutQuality(new RandomModel({ seed: 5 }));
    expect(Math.abs(q.rho)).toBeLessThan(0.3);
    expect(q.top10Recall).toBeLessThan(0.5);
  });
});

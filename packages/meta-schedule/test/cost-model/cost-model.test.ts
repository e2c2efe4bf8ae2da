/**
 * Cost-model semantics (TVM's XGBModel): labels per workload group, warm-up with random scores,
 * adaptive retraining, robustness to degenerate data; the forest and the candidate vector.
 * A stub extractor gives each candidate chosen feature rows, so that these tests are exact and
 * fast; the real extractor is exercised by features.test.ts and ranking.test.ts.
 */
import { target } from "@tessera/codegen";
import { gemmReluAdd, vectorAdd } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import {
  FAILED_RUN_SECS,
  ForestModel,
  type FeatureExtractor,
  type FeatureMatrix,
  type MeasureCandidate,
  RandomModel,
  type RunnerResult,
  tuneContext,
  workloadOf,
} from "../../src/index.js";
import { DEFAULT_FOREST_OPTIONS, Forest } from "../../src/cost-model/forest.js";
import { TrainingData, runCost } from "../../src/cost-model/training-data.js";
import { candidateVector, candidateVectorLength } from "../../src/cost-model/candidate-vector.js";

const sch = new Schedule(vectorAdd(16).func);
const ctxA = tuneContext(workloadOf(vectorAdd(16).func), target("nvidia/h100"));
const ctxB = tuneContext(workloadOf(gemmReluAdd(16).func), target("nvidia/h100"));

/** Candidates whose features are given: one row [x, 1 - x] per candidate. */
class StubExtractor implements FeatureExtractor {
  readonly name = "stub";
  readonly featureLength = 2;
  readonly rows = new Map<MeasureCandidate, FeatureMatrix>();
  candidate(x: number): MeasureCandidate {
    const c: MeasureCandidate = { sch, argsInfo: [] };
    this.rows.set(c, [Float64Array.of(x, 1 - x)]);
    return c;
  }
  extractFrom(_ctx: unknown, candidates: readonly MeasureCandidate[]): FeatureMatrix[] {
    return candidates.map((c) => this.rows.get(c) ?? []);
  }
}

const ok = (secs: number): RunnerResult => ({ ok: true, runSecs: [secs] });
const failed: RunnerResult = { ok: false, error: "compile error" };
/** Latency falling with x: the model must learn to prefer large x. */
const latencyOf = (x: number) => 1e-3 / (0.1 + x);

function batch(stub: StubExtractor, xs: readonly number[]): [MeasureCandidate[], RunnerResult[]] {
  return [xs.map((x) => stub.candidate(x)), xs.map((x) => ok(latencyOf(x)))];
}

const grid = (n: number, offset = 0) => Array.from({ length: n }, (_, k) => ((k * 37 + offset) % 101) / 100);

describe("RandomModel", () => {
  it("gives one uniform score per candidate, reproducible by seed, whatever it was told", () => {
    const stub = new StubExtractor();
    const cands = grid(20).map((x) => stub.candidate(x));
    const a = new RandomModel({ seed: 3 });
    const b = new RandomModel({ seed: 3 });
    a.update(
      ctxA,
      cands,
      cands.map(() => failed),
    );
    const sa = a.predict(ctxA, cands);
    expect(sa).toEqual(b.predict(ctxA, cands));
    expect(sa.every((s) => s >= 0 && s < 1)).toBe(true);
    expect(new Set(sa).size).toBe(20);
  });
});

describe("training data", () => {
  it("the cost of a run is the median of its run times, 1e10 s for a failure", () => {
    expect(runCost({ ok: true, runSecs: [3, 1, 2] })).toBe(2);
    expect(runCost({ ok: true, runSecs: [4, 1, 2, 3] })).toBe(2.5);
    expect(runCost({ ok: true, runSecs: [] })).toBe(FAILED_RUN_SECS);
    expect(runCost(failed)).toBe(FAILED_RUN_SECS);
  });

  it("labels are the group's best cost over each cost, per workload, 0 for failures", () => {
    const data = new TrainingData();
    const v = (x: number) => Float64Array.of(x);
    data.add("w1", [v(1), v(2), v(3)], [ok(2), ok(4), failed]);
    data.add("w2", [v(4)], [ok(100)]);
    data.add("w1", [v(5)], [ok(1)]);
    const { vectors, labels } = data.samples();
    expect(vectors.map((x) => x[0])).toEqual([1, 2, 3, 5, 4]);
    expect(labels).toEqual([0.5, 0.25, 0, 1, 1]);
    expect(data.size).toBe(5);
  });

  it("a group whose runs all failed has labels 0", () => {
    const data = new TrainingData();
    data.add("w", [Float64Array.of(1), Float64Array.of(2)], [failed, failed]);
    expect(data.samples().labels).toEqual([0, 0]);
  });
});

describe("candidate vector", () => {
  it("is the mean and the maximum of each column over the rows, then the row count", () => {
    const v = candidateVector([Float64Array.of(1, -4), Float64Array.of(3, -2)], 2);
    expect([...v]).toEqual([2, -3, 3, -2, 2]);
    expect(v.length).toBe(candidateVectorLength(2));
    expect([...candidateVector([], 2)]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("Forest", () => {
  it("learns a step and ranks accordingly", () => {
    const xs = grid(80);
    const vectors = xs.map((x) => Float64Array.of(x, 7));
    const labels = xs.map((x) => (x > 0.5 ? 1 : 0.2));
    const forest = Forest.train(vectors, labels, DEFAULT_FOREST_OPTIONS);
    const [low, high] = forest.predict([Float64Array.of(0.1, 7), Float64Array.of(0.9, 7)]);
    expect(low).toBeLessThan(0.4);
    expect(high).toBeGreaterThan(0.8);
  });

  it("degenerate data gives a constant model: equal labels, no informative column, one sample, none", () => {
    const same = Forest.train([Float64Array.of(1), Float64Array.of(2)], [0.5, 0.5], DEFAULT_FOREST_OPTIONS);
    expect(same.predict([Float64Array.of(9)])).toEqual([0.5]);
    const flat = Forest.train([Float64Array.of(1), Float64Array.of(1)], [0, 1], DEFAULT_FOREST_OPTIONS);
    expect(flat.predict([Float64Array.of(1)])).toEqual([0.5]);
    expect(Forest.train([Float64Array.of(1)], [1], DEFAULT_FOREST_OPTIONS).predict([Float64Array.of(0)])).toEqual([1]);
    expect(Forest.train([], [], DEFAULT_FOREST_OPTIONS).predict([Float64Array.of(0)])).toEqual([0]);
  });
});

describe("ForestModel", () => {
  it("scores randomly until warm, then prefers what measured fast", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub, numWarmupSamples: 24 });
    const probe = [stub.candidate(0.05), stub.candidate(0.95)];
    model.update(ctxA, ...batch(stub, grid(20)));
    expect(model.numTrainings).toBe(0);
    const random = model.predict(ctxA, [...probe, ...probe]);
    expect(random[0]).not.toBe(random[2]); // random: the same candidate scores differently
    model.update(ctxA, ...batch(stub, grid(20, 11)));
    expect(model.numTrainings).toBe(1);
    const [slow, fast] = model.predict(ctxA, probe);
    expect(fast).toBeGreaterThan(slow! + 0.3);
    expect(model.predict(ctxA, probe)).toEqual([slow, fast]);
  });

  it("retrains only when the new samples reach a fifth of the last training set (adaptive training)", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub, numWarmupSamples: 20 });
    model.update(ctxA, ...batch(stub, grid(20)));
    expect(model.numTrainings).toBe(1);
    model.update(ctxA, ...batch(stub, grid(3, 5)));
    expect(model.numTrainings).toBe(1);
    model.update(ctxA, ...batch(stub, grid(1, 9)));
    expect(model.numTrainings).toBe(2);
    const eager = new ForestModel({ extractor: stub, numWarmupSamples: 2, adaptiveTraining: false });
    for (let k = 0; k < 4; k++) eager.update(ctxA, ...batch(stub, grid(2, k)));
    expect(eager.numTrainings).toBe(4);
  });

  it("keeps workloads apart: each group's best is its own", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub, numWarmupSamples: 0, adaptiveTraining: false });
    // Workload B is 1000× slower everywhere; per-group labels make both teach the same ranking.
    const xs = grid(30);
    model.update(
      ctxA,
      xs.map((x) => stub.candidate(x)),
      xs.map((x) => ok(latencyOf(x))),
    );
    model.update(
      ctxB,
      xs.map((x) => stub.candidate(x)),
      xs.map((x) => ok(1000 * latencyOf(x))),
    );
    const [slow, fast] = model.predict(ctxA, [stub.candidate(0.05), stub.candidate(0.95)]);
    expect(fast).toBeGreaterThan(slow! + 0.3);
  });

  it("never throws on degenerate data, and its scores stay finite and non-negative", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub, numWarmupSamples: 4, adaptiveTraining: false });
    const cands = grid(6).map((x) => stub.candidate(x));
    model.update(ctxA, [], []);
    model.update(
      ctxA,
      cands,
      cands.map(() => failed),
    );
    expect(model.predict(ctxA, cands)).toEqual(cands.map(() => 0));
    model.update(
      ctxA,
      cands,
      cands.map(() => ok(1e-3)),
    );
    const scores = model.predict(ctxA, [...cands, stub.candidate(2)]);
    expect(scores.every((s) => Number.isFinite(s) && s >= 0)).toBe(true);
    const empty: MeasureCandidate = { sch, argsInfo: [] };
    expect(model.predict(ctxA, [empty])[0]).toBeGreaterThanOrEqual(0);
  });

  it("saves its samples as JSON and a fresh model restored from them predicts the same", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub, numWarmupSamples: 10 });
    model.update(ctxB, [stub.candidate(0.3)], [failed]);
    model.update(ctxA, ...batch(stub, grid(30)));
    expect(model.numTrainings).toBe(1);
    const probe = grid(8, 3).map((x) => stub.candidate(x));
    const state = JSON.parse(JSON.stringify(model.saveState()));
    const restored = new ForestModel({ extractor: stub, numWarmupSamples: 10 });
    restored.loadState(state);
    expect(restored.numSamples).toBe(31);
    expect(restored.predict(ctxA, probe)).toEqual(model.predict(ctxA, probe));
  });

  it("refuses a state of other features or with malformed samples, naming what is wrong", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub });
    const good = model.saveState();
    expect(() => new ForestModel().loadState(good)).toThrow(/stub features of length 5; this model uses per-store-feature/);
    const bad = { ...good, data: { groups: [{ workload: "w1", vectors: [[1, 2]], costs: [1] }] } };
    expect(() => model.loadState(bad)).toThrow(/samples of workload w1 are malformed/);
    // Parsed JSON of the wrong shape: a RangeError naming it, not a TypeError from inside.
    expect(() => model.loadState(null as never)).toThrow(/loadState: the state must be an object saved by saveState\(\), got null/);
    expect(() => model.loadState({ ...good, data: null } as never)).toThrow(/`groups` must be an array/);
    expect(() => model.loadState({ ...good, data: { groups: [null] } } as never)).toThrow(/samples of workload undefined are malformed/);
  });

  it("rejects mismatched candidates and results, and a bad warm-up count, by name", () => {
    const stub = new StubExtractor();
    const model = new ForestModel({ extractor: stub });
    expect(() => model.update(ctxA, [stub.candidate(0)], [])).toThrow(/random-forest\.update: 1 candidates but 0 runner results/);
    expect(() => new ForestModel({ numWarmupSamples: -1 })).toThrow(/numWarmupSamples must be a non-negative integer, got -1/);
  });
});

import { target } from "@tessera/codegen";
import { fastSchedule, manualSchedule, naiveSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { AnalyticModel, type CostModel, HybridModel, type MeasureCandidate, type RunnerResult, argsInfoOf, tuneContext, workloadOf } from "../../src/index.js";

const N = 512;
const ctx = tuneContext(workloadOf(gemmReluAdd(N).func), target("nvidia/h100"), { seed: 1 });
const argsInfo = argsInfoOf(gemmReluAdd(N).func);
const candidates: MeasureCandidate[] = [naiveSchedule(N), manualSchedule(N), fastSchedule(N)].map((sch) => ({ sch, argsInfo }));

/** A learned model whose scores are given, counting the samples it was updated with. */
class FixedModel implements CostModel {
  readonly name = "fixed";
  numSamples = 0;
  constructor(private readonly scores: readonly number[]) {}
  update(_ctx: unknown, c: readonly MeasureCandidate[]): void {
    this.numSamples += c.length;
  }
  predict(): number[] {
    return [...this.scores];
  }
}

const ok = (secs: number): RunnerResult => ({ ok: true, runSecs: [secs] });

describe("AnalyticModel", () => {
  it("ranks the naive, manual and fast schedules in that order before anything is measured", () => {
    const [naive, manual, fast] = new AnalyticModel().predict(ctx, candidates);
    expect(naive!).toBeGreaterThan(0);
    expect(manual!).toBeGreaterThan(naive!);
    expect(fast!).toBeGreaterThan(manual!);
  });

  it("scales its scores to the best measured latency of the workload", () => {
    const model = new AnalyticModel();
    const before = model.predict(ctx, candidates);
    model.update(ctx, candidates.slice(0, 1), [ok(2e-3)]);
    const after = model.predict(ctx, candidates);
    after.forEach((s, k) => expect(s / before[k]!).toBeCloseTo(2, 6));
  });

  it("scores a candidate that does not lower as 0", () => {
    const tiny = target("nvidia/h100", { overrides: { max_threads_per_block: 32 } });
    const small = tuneContext(ctx.workload, tiny, { seed: 1 });
    expect(new AnalyticModel().predict(small, candidates.slice(1, 2))).toEqual([0]);
  });
});

describe("HybridModel", () => {
  it("follows the prior alone until the learned model has its warm-up samples", () => {
    const learned = new FixedModel([3, 2, 1]);
    const hybrid = new HybridModel({ learned, minLearnedSamples: 4 });
    expect(hybrid.learnedWeight).toBe(0);
    expect(hybrid.predict(ctx, candidates)).toEqual(new AnalyticModel().predict(ctx, candidates));
    hybrid.update(ctx, candidates, [ok(3e-2), ok(5e-3), ok(4e-4)]);
    expect(hybrid.learnedWeight).toBe(0);
  });

  it("gives the learned model more weight as samples come in, up to its cap", () => {
    const learned = new FixedModel([1, 1, 1]);
    const hybrid = new HybridModel({ learned, minLearnedSamples: 1, halfWeightSamples: 3, maxLearnedWeight: 0.8 });
    hybrid.update(ctx, candidates, [ok(3e-2), ok(5e-3), ok(4e-4)]);
    expect(hybrid.learnedWeight).toBeCloseTo(0.5, 10);
    for (let k = 0; k < 10; k++) hybrid.update(ctx, candidates, [ok(3e-2), ok(5e-3), ok(4e-4)]);
    expect(hybrid.learnedWeight).toBe(0.8);
  });

  it("lets a confident learned model overturn the prior's order, and keeps the prior's order where the learned model cannot tell", () => {
    const reversed = new HybridModel({ learned: new FixedModel([1, 1e-3, 1e-6]), minLearnedSamples: 1, halfWeightSamples: 1, maxLearnedWeight: 0.95 });
    const flat = new HybridModel({ learned: new FixedModel([0.5, 0.5, 0.5]), minLearnedSamples: 1, halfWeightSamples: 1, maxLearnedWeight: 0.95 });
    for (const m of [reversed, flat]) for (let k = 0; k < 20; k++) m.update(ctx, candidates, [ok(3e-2), ok(5e-3), ok(4e-4)]);
    const r = reversed.predict(ctx, candidates);
    expect(r[0]!).toBeGreaterThan(r[2]!);
    const f = flat.predict(ctx, candidates);
    expect(f[2]!).toBeGreaterThan(f[1]!);
    expect(f[1]!).toBeGreaterThan(f[0]!);
  });
});

/**
 * Kernel-summary features: one finite row per candidate read off the analytic model's profile,
 * zeros where there is no GPU estimate, and — on real H100 measurements (fixtures/, 128 programs
 * of one tuning run, fastest first) — a learned model on them that ranks unseen programs far
 * better than the same forest on per-store rows.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { cpuTarget, target } from "@tessera/codegen";
import { fastSchedule, manualSchedule, naiveSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { Schedule, Trace, type TraceJSON } from "@tessera/schedule";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ForestModel,
  KERNEL_SUMMARY_FEATURES,
  KERNEL_SUMMARY_FEATURE_LENGTH,
  KernelSummaryFeature,
  type MeasureCandidate,
  type RunnerResult,
  argsInfoOf,
  kernelSummaryForest,
  tuneContext,
  workloadOf,
} from "../../src/index.js";
import { spearman } from "./rank-correlation.js";

const N = 512;
const func = gemmReluAdd(N).func;
const ctx = tuneContext(workloadOf(func), target("nvidia/h100"), { seed: 1 });
const argsInfo = argsInfoOf(func);
const [naive, manual, fast] = [naiveSchedule(N), manualSchedule(N), fastSchedule(N)].map((sch): MeasureCandidate => ({ sch, argsInfo }));

function rowOf(c: MeasureCandidate, context = ctx): Record<string, number> {
  const extractor = new KernelSummaryFeature();
  const [rows] = extractor.extractFrom(context, [c]);
  expect(rows).toHaveLength(1);
  expect(rows![0]).toHaveLength(extractor.featureLength);
  return Object.fromEntries(KERNEL_SUMMARY_FEATURES.map((name, k) => [name, rows![0]![k]!]));
}

describe("KernelSummaryFeature", () => {
  it("gives one finite row per candidate, one named value per column and exactly one limiting resource", () => {
    expect(new Set(KERNEL_SUMMARY_FEATURES).size).toBe(KERNEL_SUMMARY_FEATURE_LENGTH);
    for (const c of [naive!, manual!, fast!]) {
      const row = rowOf(c);
      expect(Object.values(row).every(Number.isFinite)).toBe(true);
      expect(KERNEL_SUMMARY_FEATURES.filter((n) => n.startsWith("bound_")).reduce((s, n) => s + row[n]!, 0)).toBe(1);
    }
  });

  it("tells the fast schedule from the manual one by what makes it fast", () => {
    const m = rowOf(manual!);
    const f = rowOf(fast!);
    expect(f.prefetched_share).toBe(1);
    expect(m.prefetched_share).toBe(0);
    expect(f.min_blocks_per_sm).toBe(1);
    expect(f.largest_local_buffer).toBe(128);
    // The fast schedule's k step is one unrolled block of 8 × 128 FMAs; the manual one's loops stay rolled.
    expect(f.log2_straight_line_fp).toBeGreaterThan(9);
    expect(m.log2_straight_line_fp).toBeLessThan(1);
    expect(f.log2_estimate_us).toBeLessThan(m.log2_estimate_us!);
    expect(f.memory_instructions_per_fp).toBeLessThan(m.memory_instructions_per_fp!);
  });

  it("gives a row of zeros for a CPU target (the analytic model is of a GPU)", () => {
    const cpu = tuneContext(workloadOf(func), cpuTarget("c"), { seed: 1 });
    expect(Object.values(rowOf(naive!, cpu)).every((v) => v === 0)).toBe(true);
  });

  it("estimates a candidate again for another target (regression: an estimate cached per function ignored the target)", () => {
    const small = tuneContext(workloadOf(func), target("nvidia/tesla-t4"), { seed: 1 });
    const h100 = rowOf(fast!);
    const t4 = rowOf(fast!, small);
    expect(t4.log2_estimate_us).toBeGreaterThan(h100.log2_estimate_us!);
  });
});

describe("a forest on kernel-summary features, on H100 measurements", () => {
  const records = (JSON.parse(gunzipSync(readFileSync(new URL("./fixtures/h100-gemm-relu-add-2048.json.gz", import.meta.url))).toString("utf8")) as { records: { ms: number; trace: TraceJSON }[] }).records;
  const big = gemmReluAdd(2048).func;
  const h100 = tuneContext(workloadOf(big), target("nvidia/h100"), { seed: 1 });
  let candidates: MeasureCandidate[] = [];
  beforeAll(() => {
    candidates = records.map((r) => {
      const sch = new Schedule(big);
      Trace.fromJSON(r.trace).applyTo(sch);
      return { sch, argsInfo: [] };
    });
  }, 120_000);

  /** Spearman correlation on the odd records of a model trained on the even ones (the fixture is sorted by time, so both halves span it). */
  function heldOutRho(make: (seed: number) => ForestModel, seed: number): number {
    const train = candidates.filter((_, k) => k % 2 === 0);
    const test = candidates.filter((_, k) => k % 2 === 1);
    const model = make(seed);
    model.update(h100, train, records.filter((_, k) => k % 2 === 0).map((r): RunnerResult => ({ ok: true, runSecs: [r.ms / 1e3] })));
    return spearman(model.predict(h100, test), records.filter((_, k) => k % 2 === 1).map((r) => 1 / r.ms));
  }

  it("ranks held-out programs well, and better than the per-store forest", () => {
    for (const seed of [1, 2]) {
      const summary = heldOutRho((s) => kernelSummaryForest({ seed: s }), seed);
      const perStore = heldOutRho((s) => new ForestModel({ seed: s }), seed);
      expect(summary).toBeGreaterThan(0.7);
      expect(summary).toBeGreaterThan(perStore + 0.2);
    }
  }, 120_000);
});

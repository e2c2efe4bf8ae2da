/**
 * Kernel-summary features: one finite row per candidate read off the analytic model's profile,
 * and zeros where there is no GPU estimate. How well a model learned on them ranks real H100
 * measurements: kernel-summary-ranking.test.ts.
 */
import { target } from "@tessera/codegen";
import { fastSchedule, manualSchedule, naiveSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { KernelSummaryFeature, type MeasureCandidate, argsInfoOf, tuneContext, workloadOf } from "../../src/index.js";
import { KERNEL_SUMMARY_FEATURES, KERNEL_SUMMARY_FEATURE_LENGTH } from "../../src/feature/kernel-summary-feature.js";

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
    const cpu = tuneContext(workloadOf(func), target("c"), { seed: 1 });
    expect(Object.values(rowOf(naive!, cpu)).every((v) => v === 0)).toBe(true);
  });

  it("estimates a candidate again for another target (regression: an estimate cached per function ignored the target)", () => {
    const small = tuneContext(workloadOf(func), target("nvidia/tesla-t4"), { seed: 1 });
    const h100 = rowOf(fast!);
    const t4 = rowOf(fast!, small);
    expect(t4.log2_estimate_us).toBeGreaterThan(h100.log2_estimate_us!);
  });
});

// A forest learned on these features, ranking real H100 measurements: kernel-summary-ranking.test.ts (pnpm test:slow).

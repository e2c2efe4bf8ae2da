/**
 * The schedule corpus, lowered by `lower` from @tessera/codegen and simulated, against the
 * unscheduled functions.
 */
import { lower } from "@tessera/codegen";
import { manualSchedule, scheduleCorpus } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatComparison, formatSimulationReport } from "../src/index.js";
import { compileKernel } from "../src/compile-kernel.js";

/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";

describe("lowered corpus entries simulate like the sequential executor", () => {
  for (const entry of scheduleCorpus()) {
    it(entry.name, () => {
      const module = lower(entry.build().func, "nvidia/tesla-t4");
      const report = compareWithReference(module, entry.original(), { seed: 7, rtol: 1e-5, atol: 1e-5 });
      expect(report.passed, formatSimulationReport(report.simulation) + formatComparison(report)).toBe(true);
      // No false positive on global memory, where every kernel's outputs were checked for races.
      expect(report.simulation.raceCounts).toEqual({ shared: 0, global: 0 });
      for (const kernel of module.kernels) {
        expect(
          compileKernel(kernel, { detectRaces: true }).tracked.some((m) => m.scope === "global"),
          kernel.name,
        ).toBe(true);
      }
    });
  }

  it("the manual schedule at 256³ matches (race detector on)", () => {
    const module = lower(manualSchedule(256).func, "nvidia/tesla-t4");
    const report = compareWithReference(module, gemmReluAdd(256).func, { seed: 11, atol: 1e-5 });
    if (VERBOSE) console.log(`[simulator] lowered manual schedule 256³: ${formatSimulationReport(report.simulation).trim()}`);
    expect(report.passed, formatSimulationReport(report.simulation) + formatComparison(report)).toBe(true);
    expect(report.simulation.timeMs).toBeLessThan(10_000);
  });
});

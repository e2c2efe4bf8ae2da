/**
 * Unrolling under MetaSchedule's pragmas, simulated: the manual gemm schedule with
 * `pragma_auto_unroll_max_step` / `pragma_unroll_explicit` on the gemm's outer loop (every
 * candidate MetaSchedule samples, both unrolling styles) lowers to kernels that compute what the
 * unscheduled function does, with the race detector on.
 */
import { lower } from "@tessera/codegen";
import { annotateKernel, manualSchedule } from "@tessera/corpus";
import { forEachStmt, gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatComparison, formatSimulationReport } from "../src/index.js";

const PARAMS = { tileX: 32, tileY: 32, tileK: 8, threadTileX: 4, threadTileY: 4, threadTileK: 1 };

describe("unroll pragmas: lowered, simulated, compared with the sequential executor", () => {
  for (const [unrollMaxStep, unrollExplicit] of [
    [0, true],
    [16, false],
    [64, true],
    [512, true],
    [1024, false],
  ] as const) {
    it(`max step ${unrollMaxStep}, ${unrollExplicit ? "explicit" : "#pragma unroll"}`, () => {
      const sch = annotateKernel(manualSchedule(64, PARAMS), "gemm", { unrollMaxStep, unrollExplicit });
      const module = lower(sch, "nvidia/tesla-t4");
      const kinds = new Set<string>();
      forEachStmt(module.kernels[0]!.body, (s) => void (s.kind === "For" && kinds.add(s.forKind)));
      // Explicit unrolling leaves no loop of kind unrolled; the pragma style leaves some once the budget allows.
      if (unrollExplicit) expect(kinds.has("unrolled")).toBe(false);
      else expect(kinds.has("unrolled")).toBe(unrollMaxStep > 0);
      const report = compareWithReference(module, gemmReluAdd(64).func, { seed: 3, rtol: 1e-5, atol: 1e-5 });
      expect(report.passed, formatSimulationReport(report.simulation) + formatComparison(report)).toBe(true);
      expect(report.simulation.raceCount).toBe(0);
    });
  }
});

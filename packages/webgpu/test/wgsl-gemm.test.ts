/**
 * The course's gemm+ReLU+add schedules (the corpus's own naive, manual and fast schedules, which
 * a test of the assignment checks against its solution) and the rest of the GPU schedule corpus,
 * through WGSL on Dawn, against the JS executor on random inputs. Slow: llvmpipe compiles the
 * unrolled kernels for seconds.
 */
import { gemmReluAdd } from "@tessera/ir";
import { manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import { webGpuTargetFromLimits } from "@tessera/codegen";
import { describe, expect, it } from "vitest";
import { compareOnDawn, dawn, noAdapter } from "./support/dawn.js";

const adapterTarget = "unavailable" in dawn ? undefined : webGpuTargetFromLimits(dawn.device.limits);

describe.skipIf(noAdapter !== undefined)(`gemm schedules through WGSL on Dawn${noAdapter === undefined ? "" : ` (skipped: ${noAdapter})`}`, () => {
  for (const entry of scheduleCorpus()) {
    it(`${entry.name}: ${entry.description}`, { timeout: 120_000 }, async () => {
      const result = await compareOnDawn(entry.original(), entry.build().func, 3, adapterTarget);
      expect(result.mismatches).toBe(0);
    });
  }

  for (const [name, build] of [
    ["naive", () => naiveSchedule(256)],
    ["manual", () => manualSchedule(256)],
  ] as const) {
    it(`${name} schedule at 256³`, { timeout: 120_000 }, async () => {
      const result = await compareOnDawn(gemmReluAdd(256).func, build().func, 5, adapterTarget);
      expect(result.mismatches).toBe(0);
    });
  }
});

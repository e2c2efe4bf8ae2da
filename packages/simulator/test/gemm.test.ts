import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatSimulationReport } from "../src/index.js";
import { moduleFromLoweredScript, naiveGemmKernel, tiledGemmKernel } from "./helpers.js";

/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";

describe("hand-lowered gemm+ReLU+add kernels against the sequential executor", () => {
  it("the naive kernel (one thread per element, 32×32 blocks) matches at 64³", () => {
    const report = compareWithReference(moduleFromLoweredScript(naiveGemmKernel(64)), gemmReluAdd(64).func, { seed: 1 });
    expect(report.outputs.map((o) => o.buffer)).toEqual(["D"]);
    expect(report.passed).toBe(true);
    expect(report.simulation.kernels[0]).toMatchObject({ grid: [2, 2, 1], block: [32, 32, 1], intervalsPerBlock: 1 });
  });

  it("the shared-memory tiled kernel (two barriers per k chunk) matches at 128³ with no race", () => {
    const report = compareWithReference(moduleFromLoweredScript(tiledGemmKernel(128)), gemmReluAdd(128).func, { seed: 2 });
    expect(report.passed).toBe(true);
    expect(report.simulation.uninitializedReadCount).toBe(0);
    expect(report.simulation.kernels[0]).toMatchObject({ grid: [2, 2, 1], block: [16, 16, 1], intervalsPerBlock: 5, sharedBytes: 32768 });
  });

  it("the tiled kernel without the barrier after the fetch races on A_shared and B_shared", () => {
    const report = compareWithReference(moduleFromLoweredScript(tiledGemmKernel(64, { sync: false })), gemmReluAdd(64).func);
    expect(report.passed).toBe(false);
    expect(new Set(report.simulation.races.map((r) => r.buffer))).toContain("A_shared");
    expect(report.simulation.races.every((r) => r.firstThread.join() !== r.secondThread.join())).toBe(true);
  });

  it("simulates the manual schedule's shape at 256³ (16 blocks × 256 threads) quickly, race detector on", () => {
    const report = compareWithReference(moduleFromLoweredScript(tiledGemmKernel(256)), gemmReluAdd(256).func, { seed: 4 });
    expect(report.passed).toBe(true);
    const kernel = report.simulation.kernels[0]!;
    expect(kernel).toMatchObject({ grid: [4, 4, 1], block: [16, 16, 1], intervalsPerBlock: 9 });
    if (VERBOSE) console.log(`[simulator] hand-lowered tiled gemm 256³: ${formatSimulationReport(report.simulation).trim()}`);
    // Target < 3 s on two slow cores; the bound leaves room for a loaded machine.
    expect(report.simulation.timeMs).toBeLessThan(10_000);
  });
});

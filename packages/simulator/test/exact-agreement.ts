import { expect } from "vitest";
import type { ComparisonReport } from "../src/compare.js";

/** The simulated kernels equal the sequential executor bit for bit, with no race and no uninitialised read. */
export function expectExactAgreement(r: ComparisonReport): void {
  expect(r.mismatchCount).toBe(0);
  expect(r.maxAbsError).toBe(0);
  expect(r.simulation.raceCount).toBe(0);
  expect(r.simulation.uninitializedReadCount).toBe(0);
  expect(r.passed).toBe(true);
}

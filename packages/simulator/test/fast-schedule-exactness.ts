/**
 * The check the fast-schedule property tests share: a configuration lowers for the H100 and its
 * simulation matches the executor exactly, race-free and without uninitialised reads — or lowering
 * refuses it in injectSoftwarePipeline (a pipeline the loop cannot carry), the one allowed refusal.
 */
import { LoweringError, type LoweredModule, lower } from "@tessera/codegen";
import { type FastScheduleParams, checkFastParams, fastSchedule, fastScheduleThreads } from "@tessera/corpus";
import type { PrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { expect } from "vitest";
import { compareWithReference, formatComparison } from "../src/index.js";

/** Arbitraries of the tile shape of a fast-schedule configuration small enough to simulate at 64³. */
export const SMALL_TILE_SHAPE = {
  blockRows: fc.constantFrom(16, 32, 64),
  blockCols: fc.constantFrom(16, 32, 64),
  tileK: fc.constantFrom(4, 8, 16),
  threadRows: fc.constantFrom(1, 2, 4),
  threadCols: fc.constantFrom(1, 2, 4),
  vthreadRows: fc.constantFrom(1, 2),
  vthreadCols: fc.constantFrom(1, 2),
  vector: fc.constantFrom(1, 2, 4),
};

/** The lowered module after the checks passed, or undefined where the pipeline was refused. */
export function simulatesExactly(n: number, params: FastScheduleParams, original: PrimFunc, seed: number): LoweredModule | undefined {
  let module: LoweredModule;
  try {
    module = lower(fastSchedule(n, params), "nvidia/h100");
  } catch (err) {
    if (!(err instanceof LoweringError) || !err.message.startsWith("injectSoftwarePipeline: loop k_0")) throw err;
    return undefined;
  }
  const report = compareWithReference(module, original, { seed, rtol: 1e-4, atol: 1e-4 });
  expect(report.passed, formatComparison(report)).toBe(true);
  expect(report.simulation.raceCount).toBe(0);
  expect(report.simulation.uninitializedReadCount).toBe(0);
  return module;
}

/** Parameters the property tests can use at size `n`: tiles that fit it, 32 to 256 threads a block. */
export function validAt(n: number, p: FastScheduleParams): boolean {
  try {
    checkFastParams(n, p);
  } catch (e) {
    if (e instanceof RangeError) return false;
    throw e;
  }
  const threads = fastScheduleThreads(p);
  return threads >= 32 && threads <= 256;
}

/**
 * The corpus's fast schedule (packages/corpus/src/gemm-relu-add-fast.ts) lowered with the real
 * pipeline and run in the simulator: the configuration benchmarked on the GPU (FAST_PARAMS) at
 * 256³, and other shapes of it, race-free, in bounds and equal to the sequential executor.
 */
import { lower } from "@tessera/codegen";
import { FAST_PARAMS, type FastScheduleParams, fastSchedule } from "@tessera/corpus";
import { constantSize, forEachStmt, gemmReluAdd, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference, simulate } from "../src/index.js";

function checkFast(n: number, params: FastScheduleParams, seed: number) {
  const module = lower(fastSchedule(n, params), "nvidia/h100");
  const report = compareWithReference(module, gemmReluAdd(n).func, { seed, rtol: 1e-4, atol: 1e-4 });
  expect(report.passed, report.outputs.map((o) => `${o.buffer}: ${o.mismatchCount} mismatches`).join("; ")).toBe(true);
  expect(report.simulation.raceCount).toBe(0);
  expect(report.simulation.uninitializedReadCount).toBe(0);
  return { module, report };
}

describe("fastSchedule in the simulator", () => {
  it("the benchmarked configuration at 256³: one barrier interval per k chunk, races checked", () => {
    const { module, report } = checkFast(256, FAST_PARAMS, 11);
    const kernel = report.simulation.kernels[0]!;
    // 256×128 tiles: 1×2 blocks of 256 threads; 32 k chunks, one barrier each (the last chunks in
    // the pipeline's epilogue), so 33 intervals.
    expect(kernel).toMatchObject({ grid: [2, 1, 1], block: [256, 1, 1], intervalsPerBlock: 33 });
    expect(module.kernels[0]!.launch.minBlocksPerSM).toBe(1);
  }, 60_000);

  it("two blocks per SM, 128×128 tiles of 2×2 vthreads, warps of 4×8 threads, k chunks of 16", () => {
    checkFast(256, { ...FAST_PARAMS, blockRows: 128, vthreadRows: 2, vthreadCols: 2, warpCols: 8, tileK: 16, minBlocksPerSM: 2, unrollMaxStep: 512 }, 12);
  }, 60_000);

  it("without pipelining, unrolling or launch bounds, and with 2-wide vectors", () => {
    checkFast(
      128,
      {
        ...FAST_PARAMS,
        blockRows: 64,
        blockCols: 64,
        vthreadRows: 2,
        vthreadCols: 2,
        vector: 2,
        threadRows: 2,
        threadCols: 2,
        pipeline: null,
        unrollMaxStep: 0,
        minBlocksPerSM: 0,
        warpCols: 0,
      },
      13,
    );
  }, 60_000);

  it("the register stages hold one thread's elements: the fetch loops are thread-outermost", () => {
    // Each thread fetches 8 elements of A's 256×8 chunk and 4 of B's 8×128 chunk.
    const module = lower(fastSchedule(256, FAST_PARAMS), "nvidia/h100");
    const sizes: Record<string, number> = {};
    forEachStmt(module.kernels[0]!.body, (s) => {
      if (s.kind === "Allocate" && s.buffer.name.endsWith("_local")) sizes[s.buffer.name] = constantSize(s.buffer) ?? -1;
    });
    expect(sizes).toMatchObject({ A_local: 8, B_local: 4, matmul_local: 128 });
  });

  it("the bank-conflict model: conflict-free 128-bit reads of the padded transposed A tile and of B, and conflict-free stores", () => {
    const module = lower(fastSchedule(256, FAST_PARAMS), "nvidia/h100");
    const banks = simulate(module, randomArgs(module.source, 5), { bankConflicts: true }).bankConflicts!;
    expect(banks.loads.instructions).toBeGreaterThan(0);
    expect(banks.stores.instructions).toBeGreaterThan(0);
    expect({ loads: banks.loads.conflicts, stores: banks.stores.conflicts }).toEqual({ loads: 0, stores: 0 });
  }, 60_000);
});

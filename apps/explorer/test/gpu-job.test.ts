/**
 * What the worker hands the page for a WebGPU run (the WGSL of the student's kernel and of the
 * unscheduled baseline, inputs, the executor's outputs), the baseline binding itself, and the
 * page's comparison of outputs. The run on a real adapter is in explorer.browser.test.ts.
 */
import { readFileSync } from "node:fs";
import type { AdapterLimits } from "@tessera/codegen";
import { type PrimFunc, type TypedArray, compilePrimFunc, ops, randomArgs } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareOutputs } from "../src/gpu/compare-outputs.js";
import type { GpuJob, Outcome } from "../src/protocol.js";
import { BASELINE_THREADS, bindUnscheduled } from "../src/worker/baseline.js";
import { gpuJob } from "../src/worker/gpu-job.js";
import { explore } from "../src/worker/explore.js";
import { runStudent } from "../src/worker/run-student.js";
import { WORKLOADS } from "../src/workloads.js";

/** WebGPU's defaults with 32 KiB of workgroup memory, as Chromium's SwiftShader adapter has. */
const SWIFTSHADER_LIMITS: AdapterLimits = {
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 256,
  maxComputeWorkgroupSizeZ: 64,
  maxComputeWorkgroupsPerDimension: 65535,
  maxComputeWorkgroupStorageSize: 32768,
  maxStorageBuffersPerShaderStage: 8,
};

function executed(func: PrimFunc, seed: number): TypedArray[] {
  const args = randomArgs(func, seed);
  compilePrimFunc(func).run(args);
  return args;
}

function job(outcome: Outcome<GpuJob>): GpuJob {
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.value;
}

describe("bindUnscheduled", () => {
  it("binds every block of each explorer workload onto blockIdx.x × threadIdx.x without changing what it computes", () => {
    for (const build of [WORKLOADS["vector-add"], WORKLOADS.transpose, () => ops.matmul(24, 40, 8).func]) {
      const func = build();
      const bound = bindUnscheduled(func);
      expect(executed(bound, 1)).toEqual(executed(func, 1));
    }
  });

  it("computes what the unscheduled function computes, for extents that are not multiples of the thread count", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 * BASELINE_THREADS }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), (n, m, k) => {
        for (const func of [ops.vectorAdd(n).func, ops.matmul(m, n % 40 || 1, k).func]) expect(executed(bindUnscheduled(func), n)).toEqual(executed(func, n));
      }),
      { numRuns: 25 },
    );
  });

  it("says which block it cannot bind", () => {
    const sch = new Schedule(ops.matmul(8, 8, 8).func);
    const [i, j, k] = sch.getLoops(sch.getBlock("C"));
    sch.reorder(k!, i!, j!);
    expect(() => bindUnscheduled(sch.func)).toThrow("the baseline cannot bind block C: it has no outer data-parallel loop");
  });
});

describe("gpuJob", () => {
  const solution = readFileSync(new URL("../../../assignments/gemm-relu-add/solution/gemm_relu_add.ts", import.meta.url), "utf8");

  it("builds the course's manual schedule and its baseline for WebGPU, with inputs and the executor's outputs", () => {
    // At 128³ (the same 64×64 block tiles and 32 KiB of workgroup memory) the executor is quick.
    const run = runStudent(solution, WORKLOADS["gemm-relu-add"], 128);
    if (run.scheduled === undefined) throw new Error("the manual schedule did not run");
    const built = job(gpuJob(run.scheduled.func, run.scheduled.original, SWIFTSHADER_LIMITS));
    expect(built.scheduled.ok && built.scheduled.value.kernels.map((k) => k.workgroupSize)).toEqual([[16, 16, 1]]);
    expect(built.scheduled.ok && built.scheduled.value.source).toContain("var<workgroup>");
    expect(built.baseline.ok && built.baseline.value.kernels.every((k) => k.workgroupSize[0] === BASELINE_THREADS)).toBe(true);
    expect(built.inputs).toEqual(randomArgs(run.scheduled.original, 0));
    expect(built.expected.ok && built.expected.value).toEqual(executed(run.scheduled.original, 0));
  });

  it("builds for WebGPU's default limits without an adapter, and says what does not fit them", () => {
    const run = runStudent(solution, WORKLOADS["gemm-relu-add"], 128);
    if (run.scheduled === undefined) throw new Error("the manual schedule did not run");
    expect(job(gpuJob(run.scheduled.func, run.scheduled.original, undefined)).scheduled).toMatchObject({
      ok: false,
      reason: expect.stringContaining("uses 32768 bytes of shared memory; webgpu allows 16384"),
    });
  });

  it("puts the refusal to build WGSL where the scheduled WGSL would be, as a result rather than a crash", () => {
    // A warp-scope cache: CUDA has registers shared by a warp, WGSL has no such storage.
    const code = [
      'import type { LoopRV, Schedule } from "@tessera/schedule";',
      "export function schedule(sch: Schedule): void {",
      '  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];',
      "  const [bx, tx] = sch.split(i, [null, 128]) as [LoopRV, LoopRV];",
      '  sch.bind(bx, "blockIdx.x");',
      '  sch.bind(tx, "threadIdx.x");',
      '  sch.computeAt(sch.cacheRead(sch.getBlock("C"), 0, "warp"), tx);',
      "}",
    ].join("\n");
    const result = explore({ code, workload: "vector-add" });
    expect(result.error).toBeUndefined();
    expect(result.wgsl).toMatchObject({
      ok: false,
      // Lowering refuses it first, for every target: warp registers are the mma.sync intrinsics' or each
      // lane's own, and this cache's offsets are neither.
      reason: expect.stringMatching(/^LoweringError: lowerWarpMemory: .*warp buffer A_warp/),
    });
    expect(job(result.gpu).baseline.ok).toBe(true);
  });

  it("leaves the executor's outputs out when the function is too big to run here", () => {
    const big = ops.matmul(512, 512, 512).func;
    const built = job(gpuJob(bindUnscheduled(big), big, undefined));
    expect(built.expected).toMatchObject({ ok: false, reason: expect.stringContaining("134217728 iterations") });
  });
});

describe("compareOutputs", () => {
  it("counts elements beyond the float32 tolerance and reports the largest relative error", () => {
    const expected = [Float32Array.of(1, 100, -3, Number.NaN)];
    expect(compareOutputs([Float32Array.of(1, 100, -3, Number.NaN)], expected, ["float32"])).toEqual({ maxError: 0, mismatches: 0, elements: 4 });
    const off = compareOutputs([Float32Array.of(1.5, 100.001, -3, 0)], expected, ["float32"]);
    expect(off.mismatches).toBe(2);
    expect(off.maxError).toBe(Number.POSITIVE_INFINITY);
    expect(compareOutputs([Float32Array.of(1.5)], [Float32Array.of(1)], ["float32"]).maxError).toBeCloseTo(0.5);
  });

  it("names a mismatch in buffer counts or lengths", () => {
    expect(() => compareOutputs([Float32Array.of(1)], [], ["float32"])).toThrow(/1 buffers against 0/);
    expect(() => compareOutputs([Float32Array.of(1)], [Float32Array.of(1, 2)], ["float32"])).toThrow(/buffer 0 has 1 elements against 2/);
  });
});

import { describe, expect, test } from "vitest";
import { GpuVerifyError, LoweringError } from "../../src/lower/errors.js";
import { splitHostDevice } from "../../src/lower/passes/split-host-device.js";
import { verifyGpuCode } from "../../src/lower/passes/verify-gpu-code.js";
import type { DeviceKernel } from "../../src/lowered.js";
import { cudaTarget, target } from "../../src/targets/target.js";
import { T4, errorOf, parse } from "./helpers.js";

function kernelOf(body: string): DeviceKernel {
  const f = parse(`
@T.prim_func
def main(A: T.Buffer((65536,), "float32"), B: T.Buffer((65536,), "float32")):
    T.func_attr({"global_symbol": "k"})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
${body.replace(/^\n+/, "").replace(/^/gm, "    ")}
`);
  return splitHostDevice(f).kernels[0]!;
}

const SHARED_64K = `
S = T.allocate([16384], "float32", "shared")
S_1 = T.Buffer((16384,), data=S, scope="shared")
threadIdx_x = T.launch_thread("threadIdx.x", 256)
S_1[threadIdx_x] = A[threadIdx_x]
B[threadIdx_x] = S_1[threadIdx_x]`;

describe("verifyGpuCode", () => {
  test("a kernel within the limits passes", () => {
    expect(() => verifyGpuCode(kernelOf(`threadIdx_x = T.launch_thread("threadIdx.x", 1024)\nB[threadIdx_x] = A[threadIdx_x]`), T4)).not.toThrow();
  });

  test("too many threads per block", () => {
    const k = kernelOf(`
threadIdx_x = T.launch_thread("threadIdx.x", 32)
threadIdx_y = T.launch_thread("threadIdx.y", 64)
B[threadIdx_y * 32 + threadIdx_x] = A[threadIdx_x]`);
    const err = errorOf(() => verifyGpuCode(k, T4), GpuVerifyError) as GpuVerifyError;
    expect(err).toBeInstanceOf(LoweringError);
    expect(err.kernel).toBe("k_kernel");
    expect(err.violations).toEqual(["uses 2048 threads per block (32×64×1); nvidia/tesla-t4 allows 1024"]);
    expect(err.limits).toEqual(["threads"]);
    expect(err.message).toBe("verifyGpuCode: kernel k_kernel does not fit the target: uses 2048 threads per block (32×64×1); nvidia/tesla-t4 allows 1024");
  });

  test("a block dimension over its own limit (threadIdx.z ≤ 64)", () => {
    const k = kernelOf(`
threadIdx_z = T.launch_thread("threadIdx.z", 128)
B[threadIdx_z] = A[threadIdx_z]`);
    expect((errorOf(() => verifyGpuCode(k, T4), GpuVerifyError) as GpuVerifyError).violations).toEqual([
      "threadIdx.z has extent 128; nvidia/tesla-t4 allows 64",
    ]);
  });

  test("64 KiB of shared memory on a T4, accepted with an override of the limit", () => {
    const k = kernelOf(SHARED_64K);
    expect(k.sharedBytes).toBe(65536);
    const err = errorOf(() => verifyGpuCode(k, T4), GpuVerifyError) as GpuVerifyError;
    expect(err.violations).toEqual(["uses 65536 bytes of shared memory; nvidia/tesla-t4 allows 49152"]);
    expect(err.limits).toEqual(["shared-memory"]);
    const bigger = target("nvidia/tesla-t4", { overrides: { max_shared_memory_per_block: 65536 } });
    expect(() => verifyGpuCode(k, bigger)).not.toThrow();
  });

  test("vectors wider than float4", () => {
    const k = kernelOf(`
threadIdx_x = T.launch_thread("threadIdx.x", 64)
B[T.Ramp(threadIdx_x * 8, 1, 8)] = A[T.Ramp(threadIdx_x * 8, 1, 8)]`);
    expect((errorOf(() => verifyGpuCode(k, T4), GpuVerifyError) as GpuVerifyError).violations).toEqual([
      "uses float32x8 values (32 bytes); nvidia/tesla-t4 allows vectors of at most 16 bytes",
    ]);
  });

  test("every violation is listed, threads and shared memory together; a thread-count override applies", () => {
    const k = kernelOf(`
S = T.allocate([16384], "float32", "shared")
S_1 = T.Buffer((16384,), data=S, scope="shared")
threadIdx_x = T.launch_thread("threadIdx.x", 512)
threadIdx_y = T.launch_thread("threadIdx.y", 4)
S_1[threadIdx_y * 512 + threadIdx_x] = A[threadIdx_x]`);
    const err = errorOf(() => verifyGpuCode(k, T4), GpuVerifyError) as GpuVerifyError;
    expect(err.violations).toEqual([
      "uses 2048 threads per block (512×4×1); nvidia/tesla-t4 allows 1024",
      "uses 65536 bytes of shared memory; nvidia/tesla-t4 allows 49152",
    ]);
    const roomy = target("nvidia/tesla-t4", { overrides: { max_shared_memory_per_block: 65536, max_threads_per_block: 2048 } });
    expect(() => verifyGpuCode(k, roomy)).not.toThrow();
  });

  describe("__launch_bounds__(threads, minBlocks) against the threads an SM holds", () => {
    const bounded = (threads: number, minBlocks: number) =>
      kernelOf(`
T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", ${minBlocks})
threadIdx_x = T.launch_thread("threadIdx.x", ${threads})
B[threadIdx_x] = A[threadIdx_x]`);

    test("targets know their threads per SM by architecture", () => {
      const perSM = ["nvidia/tesla-t4", "nvidia/a100", "nvidia/h100", "nvidia/h200", "cuda"].map((n) => [
        n,
        cudaTarget(n).arch,
        cudaTarget(n).maxThreadsPerMultiProcessor,
      ]);
      expect(perSM).toEqual([
        ["nvidia/tesla-t4", "sm_75", 1024],
        ["nvidia/a100", "sm_80", 2048],
        ["nvidia/h100", "sm_90", 2048],
        ["nvidia/h200", "sm_90", 2048],
        ["cuda", "sm_75", 1024],
      ]);
      expect(target("cuda", { overrides: { arch: "sm_86" } }).maxThreadsPerMultiProcessor).toBe(1536);
      expect(target("cuda", { overrides: { arch: "sm_999" } }).maxThreadsPerMultiProcessor).toBeUndefined();
    });

    test("256 threads × 2 blocks fit a T4 (1024 per SM); 512 × 4 do not, which fit an H100 (2048); an unknown architecture is not checked", () => {
      expect(() => verifyGpuCode(bounded(256, 2), T4)).not.toThrow();
      const err = errorOf(() => verifyGpuCode(bounded(512, 4), T4), GpuVerifyError) as GpuVerifyError;
      expect(err.violations).toEqual([
        "asks for 4 resident blocks of 512 threads per SM (__launch_bounds__(512, 4)); nvidia/tesla-t4 (sm_75) holds 1024 threads per SM",
      ]);
      expect(() => verifyGpuCode(bounded(512, 4), target("nvidia/h100"))).not.toThrow();
      expect(() => verifyGpuCode(bounded(512, 8), target("cuda", { overrides: { arch: "sm_999" } }))).not.toThrow();
    });
  });
});

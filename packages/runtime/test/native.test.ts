import { describe, expect, it } from "vitest";
import { compileCuda, cuda, CudaUnavailableError, loadModule, loadNative, nvrtcStatus, NDArray, timeEvaluator } from "@tessera/runtime";

describe("native addon", () => {
  it("builds and loads", () => {
    const load = loadNative();
    // When this fails, the reason holds node-gyp's log (build/native-build-error.txt).
    expect(load.ok ? "loaded" : load.reason).toBe("loaded");
    if (load.ok) expect(load.path).toMatch(/tessera_cuda\.node$/);
  });
});

describe.runIf(!cuda.available())("without a GPU driver (CI)", () => {
  it("reports CUDA unavailable, naming libcuda", () => {
    expect(cuda.available()).toBe(false);
    expect(cuda.unavailableReason()).toMatch(/libcuda/);
    expect(cuda.deviceCount()).toBe(0);
    expect(cuda.driverVersion()).toBeUndefined();
  });

  const gpuCalls: Array<[string, () => unknown]> = [
    ["cuda.device", () => cuda.device(0)],
    ["cuda.devices", () => cuda.devices()],
    ["cuda.memInfo", () => cuda.memInfo()],
    ["cuda.synchronize", () => cuda.synchronize()],
    ["NDArray.empty", () => NDArray.empty([4], "float32")],
    ["NDArray.full", () => NDArray.full([4], "float32", 1)],
    ["NDArray.from", () => NDArray.from(new Float32Array(4))],
    ["loadModule", () => loadModule(new Uint8Array([1, 2, 3]))],
  ];
  it.each(gpuCalls)("%s throws CudaUnavailableError naming the call", (call, fn) => {
    let caught: unknown;
    try {
      fn();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CudaUnavailableError);
    const err = caught as CudaUnavailableError;
    expect(err.call).toBe(call);
    expect(err.message).toContain(call);
    expect(err.message).toMatch(/libcuda/);
  });

  it("compileCuda without an arch needs a device", async () => {
    await expect(compileCuda("__global__ void k() {}")).rejects.toBeInstanceOf(CudaUnavailableError);
  });

  it.runIf(!nvrtcStatus().ok)("compileCuda with backend nvrtc reports NVRTC missing", async () => {
    await expect(compileCuda("__global__ void k() {}", { arch: "sm_90", backend: "nvrtc" })).rejects.toThrow(/NVRTC|nvrtc/);
  });

  it("timing a kernel needs a GPU too", async () => {
    // timeEvaluator itself is pure; what it times (a bound launch) is where the GPU is needed.
    await expect(
      timeEvaluator({
        warmup: () => {
          throw new CudaUnavailableError("timeEvaluator(k)", cuda.unavailableReason() ?? "");
        },
        timeBatch: () => 0,
      }),
    ).rejects.toBeInstanceOf(CudaUnavailableError);
  });
});

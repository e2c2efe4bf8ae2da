/** GPU faults: which errors are faults, and how they read in the student's feedback. */
import { CudaError } from "@tessera/runtime";
import { describe, expect, it } from "vitest";
import { CudaFaultError, cudaFaultOf, describeGpuFault, describeGpuFaultReport } from "../src/gpu/fault.js";

const illegalAddress = (): CudaError => new CudaError("an illegal memory access was encountered", "CUDA_ERROR_ILLEGAL_ADDRESS", "cuMemcpyDtoH", "k0", 700);

describe("cudaFaultOf", () => {
  it("makes a fault of the stage it happened in from a CUDA error, and of nothing else", () => {
    const fault = cudaFaultOf(illegalAddress(), "computing the reference");
    expect(fault?.fault).toEqual({
      kind: "cuda-error",
      code: "CUDA_ERROR_ILLEGAL_ADDRESS",
      call: "cuMemcpyDtoH",
      kernel: "k0",
      stage: "computing the reference",
      message: "an illegal memory access was encountered",
    });
    expect(cudaFaultOf(new Error("the schedule does not build"), "loading the kernels")).toBeUndefined();
    expect(cudaFaultOf("CUDA_ERROR_ILLEGAL_ADDRESS", "running the kernels")).toBeUndefined();
    // A fault keeps the stage it was first given.
    expect(cudaFaultOf(fault, "timing the kernels")?.stage).toBe("computing the reference");
  });

  // Regression: the bundled worker with a separately bundled backend has two copies of CudaError,
  // and `instanceof` made the fault a plain error, so the poisoned worker was kept.
  it("recognises a CudaError of another copy of the runtime by its shape", () => {
    const foreign = Object.assign(new Error("an illegal memory access was encountered"), { name: "CudaError", code: "CUDA_ERROR_ILLEGAL_ADDRESS", cudaCall: "cuCtxSynchronize" });
    expect(foreign instanceof CudaError).toBe(false);
    expect(cudaFaultOf(foreign, "running the kernels")).toBeInstanceOf(CudaFaultError);
    expect(cudaFaultOf(Object.assign(new Error("x"), { name: "CudaError" }), "running the kernels")).toBeUndefined();
  });
});

describe("describeGpuFault", () => {
  it("says what the driver's error means for the student's kernel, where it surfaced, and the code", () => {
    const fault = (code: string, stage: CudaFaultError["stage"] = "running the kernels") =>
      describeGpuFault({ kind: "cuda-error", code, call: "cuLaunchKernel", stage, message: "" });
    expect(fault("CUDA_ERROR_ILLEGAL_ADDRESS")).toBe("your kernel accessed memory out of bounds on the GPU (CUDA_ERROR_ILLEGAL_ADDRESS)");
    expect(fault("CUDA_ERROR_MISALIGNED_ADDRESS", "timing the kernels")).toBe(
      "your kernel made a misaligned memory access on the GPU while your kernels were timed (CUDA_ERROR_MISALIGNED_ADDRESS)",
    );
    expect(fault("CUDA_ERROR_SOMETHING_NEW")).toBe("the GPU reported an error running your kernel (CUDA_ERROR_SOMETHING_NEW)");
    expect(describeGpuFault({ kind: "crash", how: "the child process was killed by SIGSEGV" })).toBe(
      "the GPU worker process died while running your kernel (the child process was killed by SIGSEGV)",
    );
    expect(describeGpuFaultReport({ kind: "timeout", seconds: 60, simulatorFinding: "the simulator finds nothing" })).toBe(
      "your kernel did not finish within 60 s on the GPU and was stopped (an endless loop, or far too much work); the simulator finds nothing",
    );
  });
});

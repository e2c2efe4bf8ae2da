/** GPU faults: which errors are faults, how they read in the student's feedback, and what the simulator adds. */
import type { PrimFunc } from "@tessera/ir";
import { CudaError } from "@tessera/runtime";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { naiveSchedule } from "../../../assignments/gemm-relu-add/solution/gemm_relu_add.js";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { CudaFaultError, type GpuFault, cudaFaultOf, describeGpuFault, describeGpuFaultReport } from "../src/gpu/fault.js";
import { withSimulatorFinding } from "../src/grade/gpu-fault-finding.js";
import type { NumericsOutcome } from "../src/grade/numerics-types.js";
import type { Numerics } from "../src/manifest/index.js";
import { outOfBoundsBinding, variantBinding } from "./support/workload-variants.js";

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
    const foreign = Object.assign(new Error("an illegal memory access was encountered"), {
      name: "CudaError",
      code: "CUDA_ERROR_ILLEGAL_ADDRESS",
      cudaCall: "cuCtxSynchronize",
    });
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
      "your kernel made a misaligned memory access on the GPU while it was timed (CUDA_ERROR_MISALIGNED_ADDRESS)",
    );
    expect(fault("CUDA_ERROR_INVALID_ADDRESS_SPACE")).toBe(
      "your kernel accessed memory out of bounds on the GPU (an address in no valid memory space) (CUDA_ERROR_INVALID_ADDRESS_SPACE)",
    );
    expect(fault("CUDA_ERROR_SOMETHING_NEW")).toBe("the GPU reported an error running your kernel (CUDA_ERROR_SOMETHING_NEW)");
    expect(describeGpuFault({ kind: "crash", how: "the child process was killed by SIGSEGV" })).toBe(
      "the GPU worker process died while running your kernel (the child process was killed by SIGSEGV)",
    );
    // A course schedule timed for comparison is named as such: its fault is not the student's.
    expect(
      describeGpuFault(
        { kind: "cuda-error", code: "CUDA_ERROR_ILLEGAL_ADDRESS", call: "cuLaunchKernel", stage: "timing the kernels", message: "" },
        "the course's naive schedule",
      ),
    ).toBe("the course's naive schedule accessed memory out of bounds on the GPU while it was timed (CUDA_ERROR_ILLEGAL_ADDRESS)");
    expect(describeGpuFaultReport({ kind: "timeout", seconds: 60, simulatorFinding: "the simulator finds nothing" })).toBe(
      "your kernel did not finish within 60 s on the GPU and was stopped (an endless loop, or far too much work); the simulator finds nothing",
    );
  });
});

describe("withSimulatorFinding", () => {
  const settings: Numerics = { sizes: { full: 128, reduced: 64 }, rounds: 1, inputRange: [-1, 1], rtol: 1e-4, atol: 1e-4, onMismatch: "zero-part" };
  const fault: GpuFault = { kind: "cuda-error", code: "CUDA_ERROR_ILLEGAL_ADDRESS", call: "cuMemcpyDtoH", stage: "running the kernels", message: "" };
  const faulted: NumericsOutcome = {
    passed: false,
    backend: "gpu",
    device: "Tesla T4",
    size: 128,
    shape: "128×128×128",
    rounds: [],
    error: describeGpuFault(fault),
    fault,
  };
  const naiveOn = (func: PrimFunc): Schedule => {
    const sch = new Schedule(func);
    naiveSchedule(sch);
    return sch;
  };

  it("adds the simulator's out-of-bounds access at the reduced size to the fault and its feedback", () => {
    const oob = outOfBoundsBinding();
    const outcome = withSimulatorFinding(faulted, { assignment: DEFAULT_ASSIGNMENT, schedule: naiveOn(oob.workload(128)), settings, seed: 1 }, oob);
    expect(outcome.fault?.simulatorFinding).toMatch(
      /^the CPU simulator, running the same schedule at 64×64×64, reports: .*out-of-bounds load from buffer C in kernel \S+, block \(\d+, \d+, \d+\), thread \(\d+, \d+, \d+\)/,
    );
    expect(outcome.error).toBe(`${faulted.error}; ${outcome.fault?.simulatorFinding}`);
  });

  it("says when the simulator does not reproduce the fault, or finds only wrong results, and leaves an outcome without a fault alone", () => {
    const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
    const req = { assignment: DEFAULT_ASSIGNMENT, schedule: naiveOn(binding.workload(128)), settings, seed: 1 };
    const outcome = withSimulatorFinding(faulted, req, binding);
    expect(outcome.fault?.simulatorFinding).toBe(
      "the CPU simulator does not reproduce it at 64×64×64 (no out-of-bounds access or race there, and correct results)",
    );
    const withoutRelu = variantBinding({ relu: false });
    const wrong = withSimulatorFinding(
      faulted,
      { assignment: DEFAULT_ASSIGNMENT, schedule: naiveOn(withoutRelu.workload(128)), settings, seed: 1 },
      withoutRelu,
    );
    expect(wrong.fault?.simulatorFinding).toMatch(
      /^the CPU simulator finds no out-of-bounds access or race at 64×64×64, but wrong results: \d+ of 4096 outputs wrong; first: D\[\d+, \d+\] = /,
    );
    const fine: NumericsOutcome = { passed: true, backend: "gpu", device: "Tesla T4", size: 128, shape: "128×128×128", rounds: [] };
    expect(withSimulatorFinding(fine, req, binding)).toBe(fine);
  });
});

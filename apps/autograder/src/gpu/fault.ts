/**
 * A GPU fault: what went wrong when a schedule's kernels ran on the GPU in such a way that the
 * process running them can no longer be trusted (a CUDA error leaves its context unusable), or
 * that process died or hung. It is the graded submission's problem, described in its terms; the
 * grader replaces the GPU worker and goes on with the next request.
 */
import { CudaError } from "@tessera/runtime";

/** What the GPU worker was doing: the student's kernels, or the grader's own reference after them. */
export type GpuStage = "loading the kernels" | "running the kernels" | "computing the reference" | "timing the kernels";

export type GpuFault =
  /** The CUDA driver reported an error (`code` as the driver names it, e.g. CUDA_ERROR_ILLEGAL_ADDRESS). */
  | { readonly kind: "cuda-error"; readonly code: string; readonly call: string; readonly kernel?: string; readonly stage: GpuStage; readonly message: string }
  /** The request outlived its watchdog limit; the worker was killed. */
  | { readonly kind: "timeout"; readonly seconds: number }
  /** The worker process died under the request (`how`: its exit code or signal, its last output). */
  | { readonly kind: "crash"; readonly how: string };

/** A fault as the grade reports it: the fault, and what the simulator found running the same schedule. */
export type GpuFaultReport = GpuFault & {
  /** The CPU simulator's finding at the reduced size (an out-of-bounds access, a race), when it reproduces there. */
  readonly simulatorFinding?: string;
};

/** Thrown inside the GPU worker when a CUDA call failed: the stage it failed in, the driver's error. */
export class CudaFaultError extends Error {
  override readonly name = "CudaFaultError";
  constructor(
    readonly stage: GpuStage,
    readonly cudaError: CudaError,
  ) {
    super(`${stage}: ${cudaError.message}`, { cause: cudaError });
  }

  get fault(): GpuFault {
    const { code, cudaCall, kernel, message } = this.cudaError;
    return { kind: "cuda-error", code, call: cudaCall, stage: this.stage, message, ...(kernel === undefined ? {} : { kernel }) };
  }
}

/**
 * A CudaError by its shape, not by `instanceof`: a backend module bundled or loaded apart from the
 * worker (a test's fake GPU) has its own copy of the runtime's classes.
 */
function isCudaError(err: unknown): err is CudaError {
  if (err instanceof CudaError) return true;
  if (!(err instanceof Error) || err.name !== "CudaError") return false;
  const { code, cudaCall } = err as Partial<CudaError>;
  return typeof code === "string" && typeof cudaCall === "string";
}

/** `err` as a fault of `stage` when it is a CUDA error (every CUDA error ends the worker), else undefined. */
export function cudaFaultOf(err: unknown, stage: GpuStage): CudaFaultError | undefined {
  if (err instanceof CudaFaultError) return err;
  return isCudaError(err) ? new CudaFaultError(stage, err) : undefined;
}

/** What the driver's errors mean for the kernel that caused them (`K`: whose kernel), in the student's terms. */
const CUDA_ERROR_MEANINGS: Readonly<Record<string, string>> = {
  CUDA_ERROR_ILLEGAL_ADDRESS: "K accessed memory out of bounds on the GPU",
  // Far out of bounds: an address in no memory space a load or store can use.
  CUDA_ERROR_INVALID_ADDRESS_SPACE: "K accessed memory out of bounds on the GPU (an address in no valid memory space)",
  CUDA_ERROR_MISALIGNED_ADDRESS: "K made a misaligned memory access on the GPU",
  CUDA_ERROR_ILLEGAL_INSTRUCTION: "K executed an illegal instruction on the GPU",
  CUDA_ERROR_HARDWARE_STACK_ERROR: "K overflowed its call stack on the GPU",
  CUDA_ERROR_ASSERT: "a device-side assertion failed in K",
  CUDA_ERROR_LAUNCH_TIMEOUT: "K ran so long that the GPU's watchdog stopped it",
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: "K needs more registers or shared memory per thread block than the GPU has",
  CUDA_ERROR_LAUNCH_FAILED: "K crashed on the GPU",
  CUDA_ERROR_OUT_OF_MEMORY: "the GPU ran out of memory running K",
};

const STAGE_CONTEXT: Readonly<Record<GpuStage, string>> = {
  "loading the kernels": " while it was loaded",
  "running the kernels": "",
  "computing the reference": " (it surfaced while the grader computed its reference right after the kernel ran)",
  "timing the kernels": " while it was timed",
};

/**
 * One sentence for the feedback. `kernel` names whose kernel it was: the student's by default; a
 * course schedule the grader times for comparison gets its own name, so a fault there is not
 * blamed on the student.
 */
export function describeGpuFault(fault: GpuFault, kernel = "your kernel"): string {
  const text = (() => {
    switch (fault.kind) {
      case "cuda-error": {
        const meaning = CUDA_ERROR_MEANINGS[fault.code] ?? "the GPU reported an error running K";
        const where = fault.kernel === undefined ? "" : ` in ${fault.kernel}`;
        return `${meaning}${STAGE_CONTEXT[fault.stage]} (${fault.code}${where})`;
      }
      case "timeout":
        return `K did not finish within ${fault.seconds} s on the GPU and was stopped (an endless loop, or far too much work)`;
      case "crash":
        return `the GPU worker process died while running K (${fault.how})`;
    }
  })();
  return text.replace(/\bK\b/g, kernel);
}

/** The student's feedback for a fault report: the fault, then the simulator's finding if any. */
export function describeGpuFaultReport(report: GpuFaultReport): string {
  const fault = describeGpuFault(report);
  return report.simulatorFinding === undefined ? fault : `${fault}; ${report.simulatorFinding}`;
}

/**
 * What the GPU worker process runs requests with. The default backend is the local GPU
 * (cuda-work-backend.ts); tests name a fake one (a module exporting `backend`) through
 * `GpuWorkerOptions.backendModule`, so that the isolation is tested without a GPU.
 */
import type { AssignmentBinding } from "@tessera/course-kit";
import type { PrimFunc } from "@tessera/ir";
import type { NumericsOutcome, TimingOutcome } from "../../grade/numerics-types.js";
import type { Numerics, Timing } from "../../manifest/index.js";

export interface GpuWorkBackend {
  /**
   * Numerics of the scheduled function at full size. A CUDA error throws (a CudaFaultError, or the
   * runtime's CudaError); any other problem of the schedule is an outcome with `error`.
   */
  numerics(func: PrimFunc, binding: AssignmentBinding, settings: Numerics, seed: number): Promise<NumericsOutcome>;
  /** Throws an Error saying why when it cannot be timed; a CUDA error as for numerics. */
  time(func: PrimFunc, binding: AssignmentBinding, timing: Timing): Promise<TimingOutcome>;
}

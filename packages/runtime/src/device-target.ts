/**
 * The codegen target of a CUDA device: its architecture, SM count and per-block limits, as the
 * lowering, the meta-schedule's builder and cost model, and the GPU checks need them. Every caller
 * that tunes or builds for "the local GPU" takes its target from here, so no one forgets a limit
 * (a target without the opt-in shared memory capped dynamic shared memory at 48 KiB and dropped
 * every deeper pipeline).
 */
import { type CudaTarget, cudaTarget } from "@tessera/codegen";
import type { DeviceInfo } from "./device.js";

export function deviceTarget(device: DeviceInfo): CudaTarget {
  return cudaTarget("cuda", {
    device: {
      name: device.name,
      computeCapability: device.computeCapability,
      multiProcessorCount: device.multiprocessorCount,
      maxThreadsPerBlock: device.maxThreadsPerBlock,
      maxSharedMemoryPerBlock: device.sharedMemPerBlock,
      maxSharedMemoryPerBlockOptin: device.sharedMemPerBlockOptin,
    },
  });
}

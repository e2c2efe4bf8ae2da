/**
 * The codegen target of the local GPU (device 0): its architecture, SM count and per-block limits,
 * as meta-schedule's builder, cost model and GPU checks need them; undefined without CUDA.
 */
import { type CudaTarget, target } from "@tessera/codegen";
import { cuda } from "@tessera/runtime";

export function localDeviceTarget(): CudaTarget | undefined {
  if (!cuda.available()) return undefined;
  const d = cuda.device(0);
  return target("cuda", {
    device: {
      name: d.name,
      computeCapability: d.computeCapability,
      multiProcessorCount: d.multiprocessorCount,
      maxThreadsPerBlock: d.maxThreadsPerBlock,
      maxSharedMemoryPerBlock: d.sharedMemPerBlock,
    },
  });
}

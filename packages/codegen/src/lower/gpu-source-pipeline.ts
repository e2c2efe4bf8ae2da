/**
 * Lowering for WebGPU and Metal: the CUDA pipeline's passes, run under a CUDA-shaped view of the
 * target's limits (threads, workgroup memory, grid, vector width), so that vectorization and
 * `verifyGpuCode` judge the kernel by the WebGPU/Metal limits. The view's architecture predates
 * cp.async, so a schedule asking for asynchronous copies is refused as on an old GPU.
 */
import type { PrimFunc } from "@tessera/ir";
import type { LoweredModule } from "../lowered.js";
import type { CudaTarget } from "../targets/cuda.js";
import type { GpuSourceTarget } from "../targets/target.js";
import { lowerForCuda } from "./cuda-pipeline.js";
import type { LowerOptions } from "./lower-options.js";

/** The CUDA-pipeline view of a WebGPU/Metal target: its limits, under its name. */
export function gpuLimitsView(t: GpuSourceTarget): CudaTarget {
  return {
    name: t.name,
    kind: "cuda",
    arch: "sm_75",
    model: t.kind === "webgpu" ? "WebGPU device" : "Metal device",
    maxThreadsPerBlock: t.maxThreadsPerBlock,
    maxBlockDim: t.maxBlockDim,
    maxGridDim: t.maxGridDim,
    maxSharedMemoryPerBlock: t.maxSharedMemoryPerBlock,
    multiProcessorCount: 1,
    warpSize: t.kind === "metal" ? t.warpSize : 32,
    maxVectorBytes: t.maxVectorBytes,
    maxRegistersPerThread: 255,
  };
}

export function lowerForGpuSource<T extends GpuSourceTarget>(source: PrimFunc, target: T, opts: LowerOptions): LoweredModule<T> {
  const lowered = lowerForCuda(source, gpuLimitsView(target), opts);
  return { ...lowered, target };
}

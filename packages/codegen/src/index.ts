/**
 * @tessera/codegen — targets (a tagged union: CUDA GPUs with their limits, C), lowering
 * (`lower(func, target)`: a pass pipeline per target kind), CUDA C and C generation, launch
 * metadata and C++ header export.
 */
export * from "./launch-metadata.js";
export * from "./lowered.js";
export * from "./targets/target.js";
export {
  type CudaTarget,
  type LocalDeviceLimits,
  type TargetOptions,
  type TargetOverrides,
  TargetOverridesSchema,
  CUDA_TARGET_NAMES,
  threadsPerMultiProcessor,
  archNumber,
  supportsAsyncCopy,
  asyncCopyUnsupported,
} from "./targets/cuda.js";
export { type CTarget, C_TARGET_NAMES } from "./targets/c.js";
export { TargetError } from "./targets/errors.js";
export * from "./lower/pass.js";
export * from "./lower/errors.js";
export * from "./lower/passes/index.js";
export { lower, type LowerInput } from "./lower/pipeline.js";
export type { LowerOptions } from "./lower/lower-options.js";
export { CUDA_LOWERING_PASSES } from "./lower/cuda-pipeline.js";
export { C_LOWERING_PASSES } from "./lower/c-pipeline.js";
export { describePipeline, type PipelineStep } from "./lower/describe-pipeline.js";
export * from "./cuda/index.js";
export { kernelFromFunc, moduleFromKernelFunc, type KernelModuleOptions } from "./kernel-from-func.js";
export { readLaunchShape, type LaunchShape as KernelLaunchShape, type ThreadBinding as KernelThreadBinding } from "./lower/kernel/thread-env.js";
export * from "./c/index.js";
export { iteratorLayout, type IteratedAccess, type IteratedLoop, type IteratorLayout } from "./lower/util/iterator-layout.js";

/**
 * @tessera/codegen — lowering (a pass pipeline from scheduled TensorIR to flat device kernels),
 * GPU targets and their limits, CUDA C generation, launch metadata and C++ header export.
 */
export * from "./launch-metadata.js";
export * from "./lowered.js";
export * from "./target/target.js";
export * from "./target/errors.js";
export * from "./lower/pass.js";
export * from "./lower/errors.js";
export * from "./lower/passes/index.js";
export { lower, describePipeline, LOWERING_PASSES, type LowerOptions, type PipelineStep } from "./lower/pipeline.js";
export * from "./cuda/index.js";
export { kernelFromFunc, moduleFromKernelFunc, type KernelModuleOptions } from "./kernel-from-func.js";
export { readLaunchShape, type LaunchShape as KernelLaunchShape, type ThreadBinding as KernelThreadBinding } from "./lower/kernel/thread-env.js";
export * from "./c/index.js";
export { iteratorLayout, type IteratedAccess, type IteratedLoop, type IteratorLayout } from "./lower/util/iterator-layout.js";

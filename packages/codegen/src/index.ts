/**
 * @tessera/codegen — targets (a tagged union: CUDA GPUs with their limits, C, WebGPU, Metal), lowering
 * (`lower(func, target)`: a pass pipeline per target kind), CUDA C and C generation, launch
 * metadata and C++ header export; WGSL and Metal source.
 */
export {
  parseLaunchMetadata,
  KERNEL_PARAM_DTYPES,
  Dim3Schema,
  KernelParamSchema,
  LaunchMetadataSchema,
  type Dim3,
  type KernelParam,
  type LaunchMetadata,
} from "./launch-metadata.js";
export {
  type ArgumentSource,
  type DeviceBufferParam,
  type DeviceKernel,
  type Workspace,
  type LoweredModule,
  type Lowered,
  type DeviceScalarParam,
  type DeviceKernelParam,
  type PassStage,
  type CLoweredFunc,
} from "./lowered.js";
export {
  targetKindOf,
  target,
  isCudaTarget,
  isCTarget,
  cudaTarget,
  cTarget,
  type Target,
  type CTargetName,
  TARGET_NAMES,
  type TargetKind,
  type CudaTargetName,
  isWebGpuTarget,
  isMetalTarget,
  type GpuTarget,
  type GpuSourceTarget,
  type WebGpuTargetName,
  type MetalTargetName,
} from "./targets/target.js";
export {
  type WebGpuTarget,
  type MetalTarget,
  type AdapterLimits,
  WEBGPU_TARGET_NAMES,
  METAL_TARGET_NAMES,
  webGpuTargetFromLimits,
} from "./targets/gpu-source.js";
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
export { passRunsFor, type PassContext, type Pass, cudaPass, type CudaPassContext } from "./lower/pass.js";
export { LoweringError, type GpuLimit, GpuVerifyError, CLoweringError } from "./lower/errors.js";
export {
  compactBufferAllocation,
  convertBlocksToOpaque,
  flattenBuffer,
  injectSoftwarePipeline,
  type InjectSoftwarePipelineOptions,
  lowerInitBlock,
  lowerOpaqueBlock,
  planBufferAllocation,
  simplifyFunc,
  simplifyPass,
  PASSES_FRONT,
  vectorizeLoopPass,
  injectVirtualThreadPass,
  unrollLoopPass,
  cUnrollLoopPass,
  C_AUTO_UNROLL_MAX_STEP,
  MAX_UNROLLED_STATEMENTS,
  threadSyncPass,
  injectPTXAsyncCopyPass,
  splitHostDevice,
  splitHostDevicePass,
  verifyGpuCode,
  compactBufferAllocationPass,
  convertBlocksToOpaquePass,
  flattenBufferPass,
  injectSoftwarePipelinePass,
  lowerInitBlockPass,
  lowerOpaqueBlockPass,
  planBufferAllocationPass,
  removeNoOp,
  removeNoOpPass,
  unifyThreadBinding,
  unifyThreadBindingPass,
  lowerMatchBuffer,
  lowerMatchBufferPass,
  type FlattenBufferOptions,
  type SimplifyOptions,
  type HostDeviceSplit,
} from "./lower/passes/index.js";
export { lower, type LowerInput } from "./lower/pipeline.js";
export type { LowerOptions } from "./lower/lower-options.js";
export { CUDA_LOWERING_PASSES } from "./lower/cuda-pipeline.js";
export { C_LOWERING_PASSES } from "./lower/c-pipeline.js";
export { describePipeline, type PipelineStep } from "./lower/describe-pipeline.js";
export {
  CodegenError,
  isCudaVectorType,
  type CudaModule,
  codegenCuda,
  codegenKernel,
  type HeaderOptions,
  exportHeader,
  type ThreadBinding,
  type KernelEmitOptions,
  type LaunchShape,
} from "./cuda/index.js";
export { kernelFromFunc, moduleFromKernelFunc, moduleFromKernelFuncs, type KernelFuncsPlan, type KernelModuleOptions } from "./kernel-from-func.js";
export { readLaunchShape, type LaunchShape as KernelLaunchShape, type ThreadBinding as KernelThreadBinding } from "./lower/kernel/thread-env.js";
export { type MetalKernelInfo, type MetalModule, codegenMetal } from "./metal/index.js";
export {
  ShaderCodegenError,
  type WgslModule,
  type WgslParam,
  codegenWgsl,
  type WgslBinding,
  type WgslKernel,
  checkWgslLimits,
  wgslLimitViolations,
} from "./wgsl/index.js";
export { codegenC, buildC, type CModule, type CParam, STACK_LIMIT_BYTES, PARALLEL_MIN_WORK, estimatedWork, type LoopSummary } from "./c/index.js";
export { iteratorLayout, type IteratedAccess, type IteratedLoop, type IteratorLayout } from "./lower/util/iterator-layout.js";
export {
  MMA_FILL,
  MMA_STORE,
  MMA_TF32X3,
  PTX_LDMATRIX,
  PTX_MMA,
  WARP_OP_ARITY,
  WGMMA_COMMIT_GROUP,
  WGMMA_FENCE,
  WGMMA_MMA_ASYNC,
  WGMMA_MMA_ASYNC_RS,
  WGMMA_OP_ARITY,
  WGMMA_SCALE_D_ARG,
  WGMMA_WAIT_GROUP,
  isWarpRegisterOp,
  wgmmaArgCountFits,
  wgmmaScaleD,
  isWgmmaMma,
  registerOperands,
  wgmmaMmaOperands,
  type WgmmaMmaOperands,
  type RegisterOperand,
} from "./lower/util/warp-operands.js";

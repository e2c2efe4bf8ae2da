/**
 * `@tessera/meta-schedule/space`: the building blocks of design spaces (TVM's `ms.schedule_rule`,
 * `ms.postproc`, `ms.mutator`), the post-order application of rules, and the default lists.
 */
export { PostOrderApply, type PostOrderApplyOptions } from "./post-order-apply.js";
export { defaultCpuMutators, defaultCpuPostprocs, defaultCpuRules } from "./cpu-defaults.js";

// Schedule rules
export {
  MultiLevelTiling,
  multiLevelTiling,
  ALL_GPU_TILING_KNOBS,
  NO_GPU_TILING_KNOBS,
  DEFAULT_CUDA_TILING,
  TVM_CUDA_TILING,
  type GpuTilingKnobs,
  type MultiLevelTilingOptions,
} from "../rules/multi-level-tiling/index.js";
export {
  MultiLevelTilingTensorCore,
  multiLevelTilingTensorCore,
  DEFAULT_TENSOR_CORE_TILING,
  type MultiLevelTilingTensorCoreOptions,
} from "../rules/multi-level-tiling-tensor-core/index.js";
export {
  MMA_FP16_FP16_GROUP,
  MMA_FP16_FP32_GROUP,
  MMA_INTRIN_GROUPS,
  WGMMA_FP16_FP32_GROUP,
  WGMMA_INTRIN_GROUPS,
  type TensorCoreIntrinGroup,
  type WgmmaIntrinGroup,
} from "../rules/multi-level-tiling-tensor-core/intrin-group.js";
export { DEFAULT_WGMMA_SPACE, type WgmmaSpaceOptions, type WgmmaLoad } from "../rules/multi-level-tiling-tensor-core/wgmma-tiling.js";
export { multiLevelTilingCpu, type MultiLevelTilingCpuOptions } from "../rules/multi-level-tiling-cpu.js";
export { AutoInline, InlineConstantScalars, type AutoInlineOptions } from "../rules/auto-inline.js";
export { ParallelizeVectorizeUnroll, type ParallelizeVectorizeUnrollOptions } from "../rules/parallelize-vectorize-unroll.js";
export { autoBind, type AutoBindOptions } from "../rules/auto-bind.js";
export { crossThreadReduction, type CrossThreadReductionOptions } from "../rules/cross-thread-reduction.js";
export { addRFactor, type AddRFactorOptions } from "../rules/add-rfactor.js";
export { randomComputeLocation } from "../rules/random-compute-location.js";

// Postprocessors
export { disallowDynamicLoop } from "../postproc/disallow-dynamic-loop.js";
export { rewriteUnboundBlock, type RewriteUnboundBlockOptions } from "../postproc/rewrite-unbound-block.js";
export { RewriteCooperativeFetch } from "../postproc/rewrite-cooperative-fetch.js";
export { RewriteSharedLayout } from "../postproc/rewrite-shared-layout.js";
export { RewriteOperandSlices } from "../postproc/rewrite-operand-slices.js";
export { RewriteWriteBack } from "../postproc/rewrite-write-back.js";
export { RewriteSoftwarePipeline } from "../postproc/rewrite-software-pipeline.js";
export { RewriteTensorize } from "../postproc/rewrite-tensorize.js";
export { RewriteLaunchBounds } from "../postproc/rewrite-launch-bounds.js";
export { RewriteParallelVectorizeUnroll, type RewriteParallelVectorizeUnrollOptions } from "../postproc/rewrite-parallel-vectorize-unroll.js";
export { type ParallelPayoff, nestWork, parallelPayoffOn } from "../postproc/parallel-payoff.js";
export { RewriteReductionBlock } from "../postproc/rewrite-reduction-block.js";
export { RewriteLayout } from "../postproc/rewrite-layout.js";
export { VerifyGPUCode } from "../postproc/verify-gpu-code.js";

// Mutators
export { MutateTileSize } from "../mutator/mutate-tile-size.js";
export { MutateTileShape } from "../mutator/mutate-tile-shape.js";
export { MutateGemmKnob } from "../mutator/mutate-gemm-knob.js";
export { mutateUnroll } from "../mutator/mutate-unroll.js";
export { mutateThreadBinding } from "../mutator/mutate-thread-binding.js";
export { mutateComputeLocation } from "../mutator/mutate-compute-location.js";
export { mutateParallel, type MutateParallelOptions } from "../mutator/mutate-parallel.js";

/**
 * The default CUDA design space (TVM's `cuda` defaults of schedule rules, postprocessors and
 * mutators) with Tessera's GEMM knobs. The components that other modules provide sit in named
 * slots below: each is one line to add when its module exists.
 *
 * Rules, in TVM's order: MultiLevelTiling, InlineConstantScalars, AutoInline, [CrossThreadReduction],
 * ParallelizeVectorizeUnroll, [AutoBind]. Postprocs: [DisallowDynamicLoop], RewriteSharedLayout,
 * RewriteCooperativeFetch, [RewriteUnboundBlock], RewriteOperandSlices, RewriteWriteBack,
 * RewriteParallelVectorizeUnroll, RewriteReductionBlock, RewriteSoftwarePipeline,
 * RewriteLaunchBounds, VerifyGPUCode. Mutators with TVM's probabilities: MutateTileSize 0.9,
 * [MutateUnroll 0.08], [MutateThreadBinding 0.02], plus MutateGemmKnob 0.1.
 */
import type { Target } from "@tessera/codegen";
import type { WeightedMutator } from "../mutator/mutator.js";
import { MutateGemmKnob } from "../mutator/mutate-gemm-knob.js";
import { MutateTileSize } from "../mutator/mutate-tile-size.js";
import type { Postproc } from "../postproc/postproc.js";
import { RewriteCooperativeFetch } from "../postproc/rewrite-cooperative-fetch.js";
import { RewriteLaunchBounds } from "../postproc/rewrite-launch-bounds.js";
import { RewriteOperandSlices } from "../postproc/rewrite-operand-slices.js";
import { RewriteParallelVectorizeUnroll } from "../postproc/rewrite-parallel-vectorize-unroll.js";
import { RewriteReductionBlock } from "../postproc/rewrite-reduction-block.js";
import { RewriteSharedLayout } from "../postproc/rewrite-shared-layout.js";
import { RewriteWriteBack } from "../postproc/rewrite-write-back.js";
import { RewriteSoftwarePipeline } from "../postproc/rewrite-software-pipeline.js";
import { VerifyGPUCode } from "../postproc/verify-gpu-code.js";
import { AutoInline, InlineConstantScalars } from "../rules/auto-inline.js";
import { DEFAULT_CUDA_TILING, MultiLevelTiling, type MultiLevelTilingOptions } from "../rules/multi-level-tiling.js";
import { ParallelizeVectorizeUnroll } from "../rules/parallelize-vectorize-unroll.js";
import type { ScheduleRule } from "../rules/schedule-rule.js";
import { PostOrderApply } from "./post-order-apply.js";

export interface CudaSpaceOptions {
  /** MultiLevelTiling's options (the knobs included). */
  readonly tiling?: Partial<MultiLevelTilingOptions>;
  /** Unroll budgets (TVM: 0, 16, 64, 512, 1024; the fast GEMM's 2048 added). */
  readonly unrollMaxSteps?: readonly number[];
}

export interface CudaSpace {
  readonly rules: ScheduleRule[];
  readonly postprocs: Postproc[];
  readonly mutators: WeightedMutator[];
}

export const DEFAULT_UNROLL_MAX_STEPS: readonly number[] = [0, 16, 64, 512, 1024, 2048];

export function defaultCudaSpace(target: Target, opts: CudaSpaceOptions = {}): CudaSpace {
  if (target.kind !== "cuda") throw new RangeError(`defaultCudaSpace: target ${target.name} is not a CUDA target`);
  const rules: ScheduleRule[] = [
    new MultiLevelTiling({ ...DEFAULT_CUDA_TILING, threadExtentHigh: target.maxThreadsPerBlock, ...opts.tiling }),
    new InlineConstantScalars(),
    new AutoInline({ intoProducer: true, intoConsumer: true, inlineConstTensor: true, disallowIfThenElse: false }),
    // slot: new CrossThreadReduction({ threadExtents: [4, 8, 16, 32, 64, 128, 256, 512] }),
    new ParallelizeVectorizeUnroll({
      maxJobsPerCore: -1,
      maxVectorizeExtent: -1,
      unrollMaxSteps: opts.unrollMaxSteps ?? DEFAULT_UNROLL_MAX_STEPS,
      // Implicit (`#pragma unroll` for nvcc, as the fast GEMM): explicit expansion here currently
      // mis-places barriers after predicated shared stores (the property test found it on conv2d).
      unrollExplicit: false,
      sampleExplicit: false,
    }),
    // slot: new AutoBind({ maxThreadblocks: 256, threadExtents: [32, 64, 128, 256, 512, 1024] }),
  ];
  const postprocs: Postproc[] = [
    // slot: new DisallowDynamicLoop(),
    new RewriteSharedLayout(),
    new RewriteCooperativeFetch(),
    // slot: new RewriteUnboundBlock({ maxThreadblocks: 256 }),
    new RewriteOperandSlices(),
    new RewriteWriteBack(),
    new RewriteParallelVectorizeUnroll(),
    new RewriteReductionBlock(),
    new RewriteSoftwarePipeline(),
    new RewriteLaunchBounds(),
    new VerifyGPUCode(),
  ];
  const mutators: WeightedMutator[] = [
    { mutator: new MutateTileSize(), probability: 0.9 },
    // slot: { mutator: new MutateUnroll(), probability: 0.08 },
    // slot: { mutator: new MutateThreadBinding(), probability: 0.02 },
    // (MutateComputeLocation is in TVM's CPU defaults, not CUDA's.)
    { mutator: new MutateGemmKnob(), probability: 0.1 },
  ];
  return { rules, postprocs, mutators };
}

/** PostOrderApply over the default CUDA rules, with the default postprocessors and mutators. */
export function defaultCudaSpaceGenerator(target: Target, opts: CudaSpaceOptions = {}): PostOrderApply {
  return new PostOrderApply(defaultCudaSpace(target, opts));
}

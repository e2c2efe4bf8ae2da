/**
 * The default CUDA design space: TVM's `cuda` rules, postprocessors and mutators, with Tessera's GEMM
 * knobs (the lists: docs/architecture/meta-schedule-notes.md).
 */
import type { CudaTarget } from "@tessera/codegen";
import type { WeightedMutator } from "../interfaces/mutator.js";
import { MutateGemmKnob } from "../mutator/mutate-gemm-knob.js";
import { MutateTileShape } from "../mutator/mutate-tile-shape.js";
import { MutateTileSize } from "../mutator/mutate-tile-size.js";
import { mutateThreadBinding } from "../mutator/mutate-thread-binding.js";
import { mutateUnroll } from "../mutator/mutate-unroll.js";
import { disallowDynamicLoop } from "../postproc/disallow-dynamic-loop.js";
import { rewriteUnboundBlock } from "../postproc/rewrite-unbound-block.js";
import { autoBind } from "../rules/auto-bind.js";
import type { Postproc } from "../interfaces/postproc.js";
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
import { DEFAULT_CUDA_TILING, MultiLevelTiling, type MultiLevelTilingOptions } from "../rules/multi-level-tiling/index.js";
import {
  DEFAULT_TENSOR_CORE_TILING,
  MultiLevelTilingTensorCore,
  type MultiLevelTilingTensorCoreOptions,
} from "../rules/multi-level-tiling-tensor-core/index.js";
import { RewriteTensorize } from "../postproc/rewrite-tensorize.js";
import { ParallelizeVectorizeUnroll } from "../rules/parallelize-vectorize-unroll.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";
import { PostOrderApply } from "./post-order-apply.js";

export interface CudaSpaceOptions {
  /** MultiLevelTiling's options (the knobs included). */
  readonly tiling?: Partial<MultiLevelTilingOptions>;
  /** MultiLevelTilingTensorCore's options (`intrinGroups: []` and `wgmmaGroups: []` turn tensor cores off). */
  readonly tensorCore?: Partial<MultiLevelTilingTensorCoreOptions>;
  /** Unroll budgets (TVM: 0, 16, 64, 512, 1024; the fast GEMM's 2048 added). */
  readonly unrollMaxSteps?: readonly number[];
  /** The mutators' probabilities, by mutator (default: `DEFAULT_CUDA_MUTATOR_PROBABILITIES`). */
  readonly mutatorProbabilities?: Partial<CudaMutatorProbabilities>;
}

/** How often the evolutionary search picks each mutator of the default CUDA space (relative weights). */
export interface CudaMutatorProbabilities {
  readonly tileSize: number;
  readonly unroll: number;
  readonly threadBinding: number;
  readonly gemmKnob: number;
  readonly tileShape: number;
}

/**
 * TVM's MutateTileSize 0.9 and MutateThreadBinding 0.02; MutateUnroll 0.15 (TVM: 0.08) and the two
 * beyond TVM. The knob and unroll weights were raised from 0.1 and 0.08 on the H200 evidence in
 * docs/benchmarks/search-quality.md: the good GEMMs share eleven decisions, eight of them knobs,
 * which fresh samples almost never hold together, so the search must assemble them by mutation.
 */
export const DEFAULT_CUDA_MUTATOR_PROBABILITIES: CudaMutatorProbabilities = {
  tileSize: 0.9,
  unroll: 0.15,
  threadBinding: 0.02,
  gemmKnob: 0.5,
  tileShape: 0.25,
};

export interface CudaSpace {
  readonly rules: ScheduleRule[];
  readonly postprocs: Postproc[];
  readonly mutators: WeightedMutator[];
}

export const DEFAULT_UNROLL_MAX_STEPS: readonly number[] = [0, 16, 64, 512, 1024, 2048];

export function defaultCudaSpace(target: CudaTarget, opts: CudaSpaceOptions = {}): CudaSpace {
  if (target.kind !== "cuda") throw new RangeError(`defaultCudaSpace: target ${target.name} is not a CUDA target`);
  const rules: ScheduleRule[] = [
    // Tensor cores first: a matmul whose dtypes fit an intrinsic group is tiled here, and every
    // other block is left to MultiLevelTiling (TVM's cuda-tensorcore rules, in one space).
    new MultiLevelTilingTensorCore({ ...DEFAULT_TENSOR_CORE_TILING, ...opts.tensorCore }),
    new MultiLevelTiling({ ...DEFAULT_CUDA_TILING, threadExtentHigh: target.maxThreadsPerBlock, ...opts.tiling }),
    new InlineConstantScalars(),
    new AutoInline({ intoProducer: true, intoConsumer: true, inlineConstTensor: true, disallowIfThenElse: false }),
    // CrossThreadReduction joins here once @tessera/codegen lowers cross-thread reductions (rules/cross-thread-reduction.ts).
    new ParallelizeVectorizeUnroll({
      maxJobsPerCore: -1,
      maxVectorizeExtent: -1,
      unrollMaxSteps: opts.unrollMaxSteps ?? DEFAULT_UNROLL_MAX_STEPS,
      // Implicit (`#pragma unroll` for nvcc, as the fast GEMM): explicit expansion here currently
      // mis-places barriers after predicated shared stores (the property test found it on conv2d).
      unrollExplicit: false,
      sampleExplicit: false,
    }),
    autoBind({ maxThreadblocks: 256 }),
  ];
  const postprocs: Postproc[] = [
    disallowDynamicLoop(),
    new RewriteSharedLayout(),
    new RewriteCooperativeFetch(),
    rewriteUnboundBlock({ maxThreadblocks: 256 }),
    new RewriteOperandSlices(),
    new RewriteWriteBack(),
    new RewriteParallelVectorizeUnroll(),
    new RewriteReductionBlock(),
    new RewriteSoftwarePipeline(),
    new RewriteTensorize(),
    new RewriteLaunchBounds(),
    new VerifyGPUCode(),
  ];
  const p = mutatorProbabilitiesOf(opts.mutatorProbabilities);
  const mutators: WeightedMutator[] = [
    { mutator: new MutateTileSize(), probability: p.tileSize },
    { mutator: mutateUnroll(), probability: p.unroll },
    { mutator: mutateThreadBinding(), probability: p.threadBinding },
    // (MutateComputeLocation is in TVM's CPU defaults, not CUDA's.)
    { mutator: new MutateGemmKnob(), probability: p.gemmKnob },
    { mutator: new MutateTileShape(), probability: p.tileShape },
  ];
  return { rules, postprocs, mutators };
}

/** The defaults with `given` over them; a RangeError naming the mutator for a weight that is not a finite non-negative number. */
function mutatorProbabilitiesOf(given: Partial<CudaMutatorProbabilities> = {}): CudaMutatorProbabilities {
  const p = { ...DEFAULT_CUDA_MUTATOR_PROBABILITIES, ...given };
  for (const [name, weight] of Object.entries(p)) {
    if (!(typeof weight === "number" && Number.isFinite(weight) && weight >= 0)) {
      throw new RangeError(`defaultCudaSpace: mutatorProbabilities.${name} must be a finite number ≥ 0, got ${String(weight)}`);
    }
  }
  return p;
}

/** PostOrderApply over the default CUDA rules, with the default postprocessors and mutators. */
export function defaultCudaSpaceGenerator(target: CudaTarget, opts: CudaSpaceOptions = {}): PostOrderApply {
  return new PostOrderApply(defaultCudaSpace(target, opts));
}

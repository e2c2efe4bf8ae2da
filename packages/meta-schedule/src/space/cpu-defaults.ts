/**
 * The default design space for a CPU target (TVM's DefaultLLVM), and the components the CUDA defaults add
 * (docs/architecture/meta-schedule-notes.md).
 */
import type { WeightedMutator } from "../interfaces/mutator.js";
import { mutateComputeLocation } from "../mutator/mutate-compute-location.js";
import { mutateLayoutRewrite } from "../mutator/mutate-layout-rewrite.js";
import { mutateParallel } from "../mutator/mutate-parallel.js";
import { mutateParallelRegion } from "../mutator/mutate-parallel-region.js";
import { mutateThreadBinding } from "../mutator/mutate-thread-binding.js";
import { MutateTileSize } from "../mutator/mutate-tile-size.js";
import { mutateUnroll } from "../mutator/mutate-unroll.js";
import { disallowDynamicLoop } from "../postproc/disallow-dynamic-loop.js";
import type { Postproc } from "../interfaces/postproc.js";
import { type ParallelMargin, parallelMarginOn } from "../postproc/parallel-payoff.js";
import { RewriteLayout } from "../postproc/rewrite-layout.js";
import { RewriteParallelVectorizeUnroll, type RewriteParallelVectorizeUnrollOptions } from "../postproc/rewrite-parallel-vectorize-unroll.js";
import { RewriteReductionBlock } from "../postproc/rewrite-reduction-block.js";
import { rewriteUnboundBlock } from "../postproc/rewrite-unbound-block.js";
import { addRFactor } from "../rules/add-rfactor.js";
import { autoBind } from "../rules/auto-bind.js";
import { AutoInline, InlineConstantScalars } from "../rules/auto-inline.js";
import { multiLevelTilingCpu } from "../rules/multi-level-tiling-cpu.js";
import { registerTilesFor } from "../rules/tiling-cpu/register-tile.js";
import { machineProfile } from "@tessera/schedule/machine";
import { ParallelizeVectorizeUnroll } from "../rules/parallelize-vectorize-unroll.js";
import { randomComputeLocation } from "../rules/random-compute-location.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";
import { PostOrderApply } from "./post-order-apply.js";

/** TVM's LLVM ParallelizeVectorizeUnroll: 16 jobs per core, vectors up to 64 lanes, explicit unroll budgets 0/16/64/512. */
export const CPU_PARALLELIZE_VECTORIZE_UNROLL = {
  maxJobsPerCore: 16,
  maxVectorizeExtent: 64,
  unrollMaxSteps: [0, 16, 64, 512],
  unrollExplicit: true,
  sampleExplicit: false,
} as const;

/**
 * TVM's LLVM rules; MultiLevelTiling with this machine's register tiles (`registerTilesFor`, from the probed SIMD
 * width) and which operands RewriteLayout packs sampled; ParallelizeVectorizeUnroll sampling the parallel
 * structure near the payoff threshold (`parallelMargin`, default: this machine's rule).
 */
export function defaultCpuRules(opts: { readonly parallelMargin?: ParallelMargin } = {}): ScheduleRule[] {
  return [
    new InlineConstantScalars(),
    new AutoInline({ intoProducer: false, intoConsumer: true, inlineConstTensor: true, disallowIfThenElse: true }),
    addRFactor({ maxJobsPerCore: 16, maxInnermostFactor: 64 }),
    multiLevelTilingCpu({ registerTiles: () => registerTilesFor(machineProfile()), sampleLayoutRewrite: true }),
    new ParallelizeVectorizeUnroll({
      ...CPU_PARALLELIZE_VECTORIZE_UNROLL,
      unrollMaxSteps: [...CPU_PARALLELIZE_VECTORIZE_UNROLL.unrollMaxSteps],
      parallelMargin: opts.parallelMargin ?? parallelMarginOn(),
    }),
    randomComputeLocation(),
  ];
}

/** TVM's LLVM postprocessors; `parallel` decides which nests pay for a region (default: this machine's rule). */
export function defaultCpuPostprocs(parallel: RewriteParallelVectorizeUnrollOptions = {}): Postproc[] {
  // RewriteLayout before RewriteParallelVectorizeUnroll (TVM: last), so that its packing copies run in parallel and vectorized too.
  return [disallowDynamicLoop(), new RewriteLayout(), new RewriteParallelVectorizeUnroll(parallel), new RewriteReductionBlock()];
}

export function defaultCpuMutators(): WeightedMutator[] {
  return [
    { mutator: new MutateTileSize(), probability: 0.9 },
    { mutator: mutateComputeLocation(), probability: 0.05 },
    { mutator: mutateUnroll(), probability: 0.03 },
    { mutator: mutateParallel({ maxJobsPerCore: 16 }), probability: 0.02 },
    { mutator: mutateLayoutRewrite(), probability: 0.05 },
    { mutator: mutateParallelRegion(), probability: 0.05 },
  ];
}

/** PostOrderApply over TVM's LLVM rules, postprocessors and mutators: the space `tuneTIR` searches for a CPU target. */
export function defaultCpuSpaceGenerator(): PostOrderApply {
  return new PostOrderApply({ rules: defaultCpuRules(), postprocs: defaultCpuPostprocs(), mutators: defaultCpuMutators() });
}

/**
 * Rules the CUDA defaults add: AutoBind, last (after ParallelizeVectorizeUnroll). TVM's
 * CrossThreadReduction (between AutoInline and ParallelizeVectorizeUnroll) is left out until
 * @tessera/codegen lowers cross-thread reductions (see rules/cross-thread-reduction.ts).
 */
export const CUDA_EXTRA_RULES: readonly ScheduleRule[] = [autoBind({ maxThreadblocks: 256 })];

/**
 * Postprocessors the CUDA defaults add, with TVM's positions: DisallowDynamicLoop first;
 * RewriteUnboundBlock after RewriteCooperativeFetch and before RewriteParallelVectorizeUnroll.
 */
export const CUDA_EXTRA_POSTPROCS: readonly Postproc[] = [disallowDynamicLoop(), rewriteUnboundBlock({ maxThreadblocks: 256 })];

/** Mutators the CUDA defaults add next to MutateTileSize (0.9), with TVM's probabilities. */
export const CUDA_EXTRA_MUTATORS: readonly WeightedMutator[] = [
  { mutator: mutateUnroll(), probability: 0.08 },
  { mutator: mutateThreadBinding(), probability: 0.02 },
];

/**
 * The default design space for a CPU target (TVM's `ScheduleRule/Postproc/Mutator::DefaultLLVM`),
 * as far as this branch has its components, and the components the CUDA defaults add to the GPU
 * engineer's (AutoBind, RewriteUnboundBlock, DisallowDynamicLoop, MutateThreadBinding, MutateUnroll).
 *
 * TVM's LLVM defaults, in order — rules: ApplyCustomRule, InlineConstantScalars, AutoInline,
 * AddRFactor, MultiLevelTiling(SSRSRS), ParallelizeVectorizeUnroll, RandomComputeLocation;
 * postprocs: DisallowDynamicLoop, RewriteParallelVectorizeUnroll, RewriteReductionBlock,
 * RewriteLayout; mutators: MutateTileSize 0.9, MutateComputeLocation 0.05, MutateUnroll 0.03,
 * MutateParallel 0.02. AutoInline, ParallelizeVectorizeUnroll, RewriteParallelVectorizeUnroll,
 * RewriteReductionBlock and MutateTileSize live on the GPU branch and join these lists when the
 * branches merge (marked below); the spaces built from these lists run in the JS executor.
 */
import type { WeightedMutator } from "../mutator/mutator.js";
import { mutateComputeLocation } from "../mutator/mutate-compute-location.js";
import { mutateParallel } from "../mutator/mutate-parallel.js";
import { mutateThreadBinding } from "../mutator/mutate-thread-binding.js";
import { mutateUnroll } from "../mutator/mutate-unroll.js";
import { disallowDynamicLoop } from "../postproc/disallow-dynamic-loop.js";
import type { Postproc } from "../postproc/postproc.js";
import { rewriteUnboundBlock } from "../postproc/rewrite-unbound-block.js";
import { addRFactor } from "../rules/add-rfactor.js";
import { autoBind } from "../rules/auto-bind.js";
import { multiLevelTilingCpu } from "../rules/multi-level-tiling-cpu.js";
import { randomComputeLocation } from "../rules/random-compute-location.js";
import type { ScheduleRule } from "../rules/schedule-rule.js";

export function defaultCpuRules(): ScheduleRule[] {
  // merge: autoInline() first, parallelizeVectorizeUnroll({ maxJobsPerCore: 16, maxVectorizeExtent: 64, unrollMaxSteps: [0, 16, 64, 512], unrollExplicit: true }) after multiLevelTiling.
  return [addRFactor({ maxJobsPerCore: 16, maxInnermostFactor: 64 }), multiLevelTilingCpu(), randomComputeLocation()];
}

export function defaultCpuPostprocs(): Postproc[] {
  // merge: rewriteParallelVectorizeUnroll(), rewriteReductionBlock() after disallowDynamicLoop.
  return [disallowDynamicLoop()];
}

export function defaultCpuMutators(): WeightedMutator[] {
  // merge: { mutator: mutateTileSize(), probability: 0.9 } first.
  return [
    { mutator: mutateComputeLocation(), probability: 0.05 },
    { mutator: mutateUnroll(), probability: 0.03 },
    { mutator: mutateParallel({ maxJobsPerCore: 16 }), probability: 0.02 },
  ];
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

/**
 * TVM's ParallelizeVectorizeUnroll: on the root block only, annotations that the postprocessor
 * RewriteParallelVectorizeUnroll turns into loop kinds and pragmas — the largest parallel extent
 * (`meta_schedule.parallel`, CPU), the largest vectorized extent (`meta_schedule.vectorize`, CPU),
 * and a sampled unroll budget (`meta_schedule.unroll_explicit` / `_implicit`). With
 * `sampleExplicit`, whether unrolled loops are expanded here or left to nvcc is sampled too.
 * Beyond TVM, with `parallelMargin` (CPU): where the largest loop nest's work is near the
 * parallel-payoff threshold, whether it runs in a parallel region is sampled (`PARALLEL_REGION`),
 * the rule's answer twice as likely as the other.
 */
import type { BlockRV, Schedule } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";
import { PARALLEL, PARALLEL_REGION, UNROLL_EXPLICIT, UNROLL_EXPLICIT_FLAG, UNROLL_IMPLICIT, VECTORIZE } from "../schedule-utils/annotations.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";
import { type ParallelMargin, largestNest, nearPayoffThreshold, nestsOf } from "../postproc/parallel-payoff.js";

export interface ParallelizeVectorizeUnrollOptions {
  /** Parallel jobs per CPU core (-1: no parallelisation). */
  readonly maxJobsPerCore: number;
  /** Largest vectorized extent (-1: no vectorisation). */
  readonly maxVectorizeExtent: number;
  /** Unroll budgets sampled uniformly (empty: no unrolling). */
  readonly unrollMaxSteps: readonly number[];
  /** TVM's unroll_explicit: the key `meta_schedule.unroll_explicit` (true) or `_implicit`. */
  readonly unrollExplicit: boolean;
  /** Also sample explicit against implicit expansion (`meta_schedule.unroll_explicit_flag`). */
  readonly sampleExplicit: boolean;
  /** The parallel-payoff rule's margin (CPU): near its threshold, sample the parallel structure (default: the rule decides). */
  readonly parallelMargin?: ParallelMargin;
}

/** The prior of the rule's own answer when the parallel structure is sampled. */
const RULE_ANSWER_PROBABILITY = 2 / 3;

export class ParallelizeVectorizeUnroll implements ScheduleRule {
  readonly name = "parallelizeVectorizeUnroll";
  private cores = 1;
  constructor(readonly options: ParallelizeVectorizeUnrollOptions) {}

  initialize(ctx: TuneContext): void {
    this.cores = Math.max(1, ctx.numThreads);
  }

  apply(sch: Schedule, block: BlockRV, _ctx: TuneContext): Schedule[] {
    if (sch.get(block).name !== "root") return [sch];
    const o = this.options;
    if (o.maxJobsPerCore !== -1) {
      sch.annotate(block, PARALLEL, o.maxJobsPerCore * this.cores);
      this.sampleParallelRegion(sch, block);
    }
    if (o.maxVectorizeExtent !== -1) sch.annotate(block, VECTORIZE, o.maxVectorizeExtent);
    if (o.unrollMaxSteps.length > 0) {
      const n = o.unrollMaxSteps.length;
      const step = sch.sampleCategorical(
        o.unrollMaxSteps,
        o.unrollMaxSteps.map(() => 1 / n),
      );
      sch.annotate(block, o.unrollExplicit ? UNROLL_EXPLICIT : UNROLL_IMPLICIT, step);
      if (o.sampleExplicit) sch.annotate(block, UNROLL_EXPLICIT_FLAG, sch.sampleCategorical([0, 1], [0.5, 0.5]));
    }
    return [sch];
  }

  /** PARALLEL_REGION sampled over [the rule's answer, the other] where the largest nest's margin is near the threshold. */
  private sampleParallelRegion(sch: Schedule, root: BlockRV): void {
    const margin = this.options.parallelMargin;
    if (margin === undefined || this.cores < 2) return;
    const largest = largestNest(sch, nestsOf(sch, sch.getChildBlocks(root)));
    if (largest === undefined) return;
    const m = margin(largest.work, this.cores);
    if (!nearPayoffThreshold(m)) return;
    const ruleSays = m >= 1 ? 1 : 0;
    sch.annotate(root, PARALLEL_REGION, sch.sampleCategorical([ruleSays, 1 - ruleSays], [RULE_ANSWER_PROBABILITY, 1 - RULE_ANSWER_PROBABILITY]));
  }
}

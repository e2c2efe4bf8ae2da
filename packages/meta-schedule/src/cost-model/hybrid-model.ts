/**
 * The default GPU cost model: the analytic prior corrected by a learned model as measurements arrive
 * (the weighting and why kernel-summary rows: docs/architecture/meta-schedule-notes.md).
 */
import type { RunnerResult } from "../interfaces/runner.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";
import { KernelSummaryFeature } from "../feature/kernel-summary-feature.js";
import { AnalyticModel } from "./analytic-model.js";
import type { CostModel } from "../interfaces/cost-model.js";
import { DEFAULT_NUM_WARMUP_SAMPLES, ForestModel, type ForestModelOptions } from "./forest-model.js";

export interface HybridModelOptions {
  readonly prior?: CostModel;
  /** Default: a forest on kernel-summary features (`kernelSummaryForest()`). */
  readonly learned?: CostModel & { readonly numSamples: number };
  /** Measured samples at which the learned model weighs as much as the prior (default 32). */
  readonly halfWeightSamples?: number;
  /** Upper bound of the learned model's weight (default 0.85). */
  readonly maxLearnedWeight?: number;
  /** Samples below which the learned model is not consulted (default: the forest's warm-up, 16). */
  readonly minLearnedSamples?: number;
}

/** A forest on kernel-summary features; more columns per tree than on per-store rows, since the row is short. */
export function kernelSummaryForest(opts: Omit<ForestModelOptions, "extractor"> = {}): ForestModel {
  return new ForestModel({ extractor: new KernelSummaryFeature(), columnFraction: 0.6, ...opts });
}

export class HybridModel implements CostModel {
  readonly name = "hybrid";
  readonly prior: CostModel;
  readonly learned: CostModel & { readonly numSamples: number };
  private readonly halfWeightSamples: number;
  private readonly maxLearnedWeight: number;
  private readonly minLearnedSamples: number;

  constructor(opts: HybridModelOptions = {}) {
    this.prior = opts.prior ?? new AnalyticModel();
    this.learned = opts.learned ?? kernelSummaryForest();
    this.halfWeightSamples = opts.halfWeightSamples ?? 32;
    this.maxLearnedWeight = opts.maxLearnedWeight ?? 0.85;
    this.minLearnedSamples = opts.minLearnedSamples ?? DEFAULT_NUM_WARMUP_SAMPLES;
    if (!(this.halfWeightSamples > 0)) throw new RangeError(`HybridModel: halfWeightSamples must be positive, got ${this.halfWeightSamples}`);
    if (!(this.maxLearnedWeight >= 0 && this.maxLearnedWeight <= 1))
      throw new RangeError(`HybridModel: maxLearnedWeight must be in [0, 1], got ${this.maxLearnedWeight}`);
  }

  /** The learned model's weight now. */
  get learnedWeight(): number {
    const n = this.learned.numSamples;
    if (n < this.minLearnedSamples) return 0;
    return Math.min(this.maxLearnedWeight, n / (n + this.halfWeightSamples));
  }

  update(ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    this.prior.update(ctx, candidates, results);
    this.learned.update(ctx, candidates, results);
  }

  predict(ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[] {
    const prior = this.prior.predict(ctx, candidates);
    const w = this.learnedWeight;
    if (w === 0) return prior;
    const learned = this.learned.predict(ctx, candidates);
    // A tiny floor keeps a zero from one model from erasing the other's ranking entirely.
    return prior.map((p, k) => (p <= 0 ? 0 : Math.max(learned[k]!, 1e-6) ** w * p ** (1 - w)));
  }
}

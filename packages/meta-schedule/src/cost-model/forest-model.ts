/**
 * The learned cost model: TVM's XGBModel semantics (labels, warm-up, adaptive retraining) with a random
 * forest in place of XGBoost (docs/architecture/meta-schedule-notes.md).
 */
import { RandomEngine } from "@tessera/schedule";
import type { FeatureExtractor } from "../interfaces/feature-extractor.js";
import { PerStoreFeature } from "../feature/per-store-feature-extractor.js";
import type { RunnerResult } from "../interfaces/runner.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";
import { candidateVector, candidateVectorLength } from "./candidate-vector.js";
import type { CostModel } from "../interfaces/cost-model.js";
import { DEFAULT_FOREST_OPTIONS, Forest, type ForestOptions } from "./forest.js";
import { TrainingData, type TrainingDataJSON } from "./training-data.js";

/** What `ForestModel.saveState` keeps: the measured samples (the forest is retrained from them on load). */
export interface ForestModelState {
  readonly kind: "random-forest";
  readonly extractor: string;
  readonly vectorLength: number;
  readonly data: TrainingDataJSON;
}

export interface ForestModelOptions extends Partial<ForestOptions> {
  readonly extractor?: FeatureExtractor;
  /** Samples needed before the model's predictions replace random scores. */
  readonly numWarmupSamples?: number;
  /** Retrain only after enough new samples (a fifth of the last training set); false retrains on every update. */
  readonly adaptiveTraining?: boolean;
}

export const DEFAULT_NUM_WARMUP_SAMPLES = 16;

export class ForestModel implements CostModel {
  readonly name = "random-forest";
  private readonly extractor: FeatureExtractor;
  private readonly numWarmupSamples: number;
  private readonly adaptiveTraining: boolean;
  private readonly forestOptions: ForestOptions;
  private data = new TrainingData();
  private readonly rng: RandomEngine;
  private forest: Forest | undefined;
  private lastTrainSize = 0;
  private trainings = 0;

  constructor(opts: ForestModelOptions = {}) {
    this.extractor = opts.extractor ?? new PerStoreFeature();
    this.numWarmupSamples = opts.numWarmupSamples ?? DEFAULT_NUM_WARMUP_SAMPLES;
    this.adaptiveTraining = opts.adaptiveTraining ?? true;
    const { extractor: _e, numWarmupSamples: _w, adaptiveTraining: _a, ...forest } = opts;
    this.forestOptions = { ...DEFAULT_FOREST_OPTIONS, ...forest };
    if (!(Number.isInteger(this.numWarmupSamples) && this.numWarmupSamples >= 0)) {
      throw new RangeError(`ForestModel: numWarmupSamples must be a non-negative integer, got ${this.numWarmupSamples}`);
    }
    this.rng = new RandomEngine(this.forestOptions.seed);
  }

  /** Measured samples held. */
  get numSamples(): number {
    return this.data.size;
  }

  /** How many times the forest was (re)trained. */
  get numTrainings(): number {
    return this.trainings;
  }

  /** The measured samples, to resume tuning later (TVM saves its data and booster; the forest retrains deterministically). */
  saveState(): ForestModelState {
    return {
      kind: "random-forest",
      extractor: this.extractor.name,
      vectorLength: candidateVectorLength(this.extractor.featureLength),
      data: this.data.toJSON(),
    };
  }

  /** Replaces the samples with saved ones and retrains when there are enough. */
  loadState(state: ForestModelState): void {
    const width = candidateVectorLength(this.extractor.featureLength);
    if (typeof state !== "object" || state === null)
      throw new RangeError(`${this.name}.loadState: the state must be an object saved by saveState(), got ${String(state)}`);
    if (state.kind !== "random-forest" || state.extractor !== this.extractor.name || state.vectorLength !== width) {
      throw new RangeError(
        `${this.name}.loadState: the state is of a ${String(state.kind)} model with ${String(state.extractor)} features of length ${String(state.vectorLength)}; this model uses ${this.extractor.name} (${width})`,
      );
    }
    this.data = TrainingData.fromJSON(state.data, width);
    this.forest = undefined;
    this.lastTrainSize = 0;
    if (this.data.size >= this.numWarmupSamples && this.data.size > 0) this.train();
  }

  update(ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    if (candidates.length !== results.length) {
      throw new RangeError(`${this.name}.update: ${candidates.length} candidates but ${results.length} runner results`);
    }
    if (candidates.length === 0) return;
    this.data.add(ctx.workload.hash, this.vectorsOf(ctx, candidates), results);
    const n = this.data.size;
    if (n < this.numWarmupSamples) return;
    if (this.adaptiveTraining && this.forest !== undefined && n - this.lastTrainSize < this.lastTrainSize / 5) return;
    this.train();
  }

  private train(): void {
    const { vectors, labels } = this.data.samples();
    this.forest = Forest.train(vectors, labels, { ...this.forestOptions, seed: this.forestOptions.seed + this.trainings });
    this.lastTrainSize = this.data.size;
    this.trainings++;
  }

  predict(ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[] {
    if (this.forest === undefined || this.data.size < this.numWarmupSamples) return candidates.map(() => this.rng.uniform());
    return this.forest.predict(this.vectorsOf(ctx, candidates)).map((s) => (Number.isFinite(s) && s > 0 ? s : 0));
  }

  private vectorsOf(ctx: TuneContext, candidates: readonly MeasureCandidate[]): Float64Array[] {
    const width = this.extractor.featureLength;
    return this.extractor.extractFrom(ctx, candidates).map((rows) => candidateVector(rows, width));
  }
}

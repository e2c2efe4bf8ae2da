/**
 * TVM's `random` cost model: uniform random scores, ignoring measurements. The baseline that a
 * learned model must beat, and the ablation of the cost model in a search.
 */
import { RandomEngine } from "@tessera/schedule";
import type { RunnerResult } from "../interfaces/runner.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";
import type { CostModel } from "../interfaces/cost-model.js";

export class RandomModel implements CostModel {
  readonly name = "random";
  private readonly rng: RandomEngine;

  constructor(opts: { readonly seed?: number } = {}) {
    this.rng = new RandomEngine(opts.seed);
  }

  update(_ctx: TuneContext, _candidates: readonly MeasureCandidate[], _results: readonly RunnerResult[]): void {}

  predict(_ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[] {
    return candidates.map(() => this.rng.uniform());
  }
}

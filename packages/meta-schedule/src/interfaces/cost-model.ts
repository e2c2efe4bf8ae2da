/**
 * A cost model (TVM's `CostModel`): trained online on measured candidates, it scores unmeasured
 * ones (higher is better: predicted normalised throughput) so that the search measures the
 * promising few.
 */
import type { RunnerResult } from "./runner.js";
import type { MeasureCandidate } from "./candidate.js";
import type { TuneContext } from "../tune-context.js";

export interface CostModel {
  readonly name: string;
  update(ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void;
  /** One score per candidate, ≥ 0, higher is faster. */
  predict(ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[];
}

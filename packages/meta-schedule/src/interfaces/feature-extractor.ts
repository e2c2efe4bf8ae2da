/**
 * A feature extractor (TVM's `FeatureExtractor`): numbers describing a candidate's lowered
 * program, the cost model's input. Per-store features give one row per buffer store.
 */
import type { MeasureCandidate } from "./candidate.js";
import type { TuneContext } from "../tune-context.js";

/** One candidate's features: rows of equal length (one per store for per-store features). */
export type FeatureMatrix = readonly Float64Array[];

export interface FeatureExtractor {
  readonly name: string;
  /** Length of every row. */
  readonly featureLength: number;
  extractFrom(ctx: TuneContext, candidates: readonly MeasureCandidate[]): FeatureMatrix[];
}

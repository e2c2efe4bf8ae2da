/**
 * A measure candidate (TVM's `MeasureCandidate`): what a search strategy hands to the builder,
 * the runner, the cost model and the feature extractors.
 */
import type { Schedule } from "@tessera/schedule";
import type { ArgInfo } from "../arg-info.js";
import type { LatencyEstimate } from "../latency-model/latency-model.js";

/** A concrete schedule (trace replayed, postprocessors applied) and what to run it with. */
export interface MeasureCandidate {
  readonly sch: Schedule;
  readonly argsInfo: readonly ArgInfo[];
  /**
   * Not TVM's: the analytic model's estimate of the lowered program, when the search computed it
   * already (in a replay worker thread), so that the cost model need not lower it again.
   */
  readonly estimate?: LatencyEstimate;
}

/**
 * A cost model without training: the analytic latency model on each candidate's lowered module, scored
 * against the best latency measured so far (docs/architecture/meta-schedule-notes.md).
 */
import { latencyEstimateOf } from "../feature/latency-estimate-of.js";
import { FAILED_RUN_SECS, type RunnerResult, meanRunSecs } from "../interfaces/runner.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";
import type { CostModel } from "../interfaces/cost-model.js";

const NO_MEASUREMENT_REFERENCE_SECS = 1e-3;

export class AnalyticModel implements CostModel {
  readonly name = "analytic";
  /** Best measured latency per workload hash, seconds. */
  private readonly bestMeasured = new Map<string, number>();

  update(ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    if (candidates.length !== results.length) throw new RangeError(`${this.name}.update: ${candidates.length} candidates but ${results.length} runner results`);
    for (const result of results) {
      const secs = meanRunSecs(result);
      if (secs >= FAILED_RUN_SECS) continue;
      const best = this.bestMeasured.get(ctx.workload.hash);
      if (best === undefined || secs < best) this.bestMeasured.set(ctx.workload.hash, secs);
    }
  }

  predict(ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[] {
    const reference = this.bestMeasured.get(ctx.workload.hash) ?? NO_MEASUREMENT_REFERENCE_SECS;
    return candidates.map((c) => {
      const secs = this.estimateSeconds(c, ctx);
      return secs === undefined || !(secs > 0) ? 0 : reference / secs;
    });
  }

  /** The model's latency for one candidate, or undefined when it does not lower (or the target is no GPU: a CPU run uses the learned model). */
  estimateSeconds(candidate: MeasureCandidate, ctx: TuneContext): number | undefined {
    return latencyEstimateOf(candidate, ctx)?.seconds;
  }
}

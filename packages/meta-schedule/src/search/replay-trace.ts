/**
 * Random search (TVM's `ReplayTrace`): every candidate is a random design space replayed with
 * fresh decisions and the postprocessors. A slot of the batch is given up after `maxFailCount`
 * failed tries in a row (invalid samples, or programs already measured); the search ends when a
 * whole batch comes out empty or the trials are used.
 */
import type { TuneContext } from "../tune-context.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import { SearchStrategyBase, checkMaxFailCount, randomBatch } from "./strategy-base.js";

export interface ReplayTraceConfig {
  /** Failed tries per slot before the batch is cut short (TVM: 100). */
  readonly maxFailCount: number;
}

export const DEFAULT_REPLAY_TRACE_CONFIG: ReplayTraceConfig = { maxFailCount: 100 };

export class ReplayTraceStrategy extends SearchStrategyBase {
  readonly name = "replayTrace";
  readonly config: ReplayTraceConfig;

  constructor(config: Partial<ReplayTraceConfig> = {}) {
    super();
    this.config = { ...DEFAULT_REPLAY_TRACE_CONFIG, ...config };
    checkMaxFailCount(this.name, this.config.maxFailCount);
  }

  generateMeasureCandidates(_ctx: TuneContext): MeasureCandidate[] | undefined {
    const run = this.run("generateMeasureCandidates");
    return randomBatch(run, this.name, this.config.maxFailCount, (round) => run.replayer.sampleFresh(run.designSpaces, round));
  }
}

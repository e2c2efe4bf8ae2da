/**
 * Random search (TVM's `ReplayTrace`): every candidate is a random design space replayed with
 * fresh decisions and the postprocessors. A slot of the batch is given up after `maxFailCount`
 * failed tries in a row (invalid samples, or programs already measured); the search ends when a
 * whole batch comes out empty or the trials are used.
 */
import { MetaScheduleError } from "../errors.js";
import type { RunnerResult } from "../runner/runner.js";
import type { TuneContext } from "../tune-context.js";
import type { Candidate } from "./candidate-replayer.js";
import { RejectionTally } from "./rejection-tally.js";
import { DUPLICATE_OF_MEASURED, SearchRun, requireRun } from "./search-run.js";
import type { MeasureCandidate, PreTuningOptions, SearchStrategy } from "./search-strategy.js";

export interface ReplayTraceConfig {
  /** Failed tries per slot before the batch is cut short (TVM: 100). */
  readonly maxFailCount: number;
}

export const DEFAULT_REPLAY_TRACE_CONFIG: ReplayTraceConfig = { maxFailCount: 100 };

export class ReplayTraceStrategy implements SearchStrategy {
  readonly name = "replayTrace";
  readonly config: ReplayTraceConfig;
  private run: SearchRun | undefined;

  constructor(config: Partial<ReplayTraceConfig> = {}) {
    this.config = { ...DEFAULT_REPLAY_TRACE_CONFIG, ...config };
    if (!Number.isSafeInteger(this.config.maxFailCount) || this.config.maxFailCount < 1) {
      throw new MetaScheduleError(`replayTrace: maxFailCount must be a positive integer, got ${this.config.maxFailCount}`);
    }
  }

  preTuning(ctx: TuneContext, opts: PreTuningOptions): void {
    this.run = new SearchRun(ctx, opts, this.name);
  }

  generateMeasureCandidates(_ctx: TuneContext): MeasureCandidate[] | undefined {
    const run = requireRun(this.run, this.name, "generateMeasureCandidates");
    const batch = run.nextBatchSize();
    if (batch === 0) return undefined;
    const round = new RejectionTally();
    const picked: Candidate[] = [];
    const pickedHashes = new Set<string>();
    for (let slot = 0; slot < batch; slot++) {
      let found: Candidate | undefined;
      for (let fails = 0; found === undefined && fails < this.config.maxFailCount; fails++) {
        const c = run.replayer.sampleFresh(run.designSpaces, round);
        if (c === undefined) continue;
        if (run.isMeasured(c) || pickedHashes.has(c.hash)) round.add(DUPLICATE_OF_MEASURED);
        else found = c;
      }
      if (found === undefined) break;
      picked.push(found);
      pickedHashes.add(found.hash);
    }
    run.rejections.addAll(round);
    const handedOut = run.handOut(picked);
    run.logRound(this.name, picked.length, round);
    if (picked.length === 0) {
      run.ctx.log("warn", `[${run.ctx.taskName}] ${this.name}: no new valid candidate in ${this.config.maxFailCount} tries; the search ends (rejected: ${round.summary()})`);
      return run.finish();
    }
    return handedOut;
  }

  notifyRunnerResults(_ctx: TuneContext, _candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    requireRun(this.run, this.name, "notifyRunnerResults").resultsReceived += results.length;
  }

  postTuning(_ctx: TuneContext): void {
    const run = requireRun(this.run, this.name, "postTuning");
    run.ctx.log("info", `[${run.ctx.taskName}] ${this.name}: done after ${run.trialsIssued} trials; rejected candidates: ${run.rejections.summary()}`);
  }

  /** Why candidates were rejected since `preTuning`, most frequent first. */
  rejectionTally(): ReadonlyArray<readonly [string, number]> {
    return this.run?.rejections.entries() ?? [];
  }
}

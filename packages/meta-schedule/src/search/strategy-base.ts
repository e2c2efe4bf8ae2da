/**
 * What the search strategies share: the run state created by `preTuning`, result counting,
 * the closing log line and the rejection tally; and, for the random strategies, filling a batch
 * from a sampler with a limit of failed tries per slot.
 */
import { MetaScheduleError } from "../errors.js";
import type { RunnerResult } from "../interfaces/runner.js";
import type { TuneContext } from "../tune-context.js";
import type { Candidate } from "./candidate-replayer.js";
import { RejectionTally } from "./rejection-tally.js";
import { DUPLICATE_OF_MEASURED, SearchRun } from "./search-run.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { PreTuningOptions, SearchStrategy } from "../interfaces/search-strategy.js";
import type { ReplayPool } from "./replay-pool.js";

export abstract class SearchStrategyBase implements SearchStrategy {
  abstract readonly name: string;
  private state: SearchRun | undefined;
  private replayPool: ReplayPool | undefined;

  /** Worker threads for the runs that `preTuning` starts from now on (undefined: replay in this thread). */
  useReplayPool(pool: ReplayPool | undefined): void {
    this.replayPool = pool;
  }

  preTuning(ctx: TuneContext, opts: PreTuningOptions): void {
    this.state = new SearchRun(ctx, opts, this.name, this.replayPool);
    this.started(this.state, opts);
  }

  /** Called by `preTuning` with the new run (the strategy's own set-up). */
  protected started(_run: SearchRun, _opts: PreTuningOptions): void {}

  abstract generateMeasureCandidates(ctx: TuneContext): MeasureCandidate[] | undefined | Promise<MeasureCandidate[] | undefined>;

  notifyRunnerResults(_ctx: TuneContext, _candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    this.run("notifyRunnerResults").resultsReceived += results.length;
  }

  postTuning(_ctx: TuneContext): void {
    const run = this.run("postTuning");
    run.ctx.log("info", `[${run.ctx.taskName}] ${this.name}: done after ${run.trialsIssued} trials; rejected candidates: ${run.rejections.summary()}`);
  }

  /** Why candidates were rejected since `preTuning`, most frequent first. */
  rejectionTally(): ReadonlyArray<readonly [string, number]> {
    return this.state?.rejections.entries() ?? [];
  }

  /** The run, or a clear error when the strategy is used before `preTuning`. */
  protected run(method: string): SearchRun {
    if (this.state === undefined) throw new MetaScheduleError(`${this.name}.${method} called before preTuning`);
    return this.state;
  }
}

/**
 * A batch of new programs drawn from `sample`: a slot is given up after `maxFailCount` failed
 * tries in a row (invalid samples, programs already handed out), and then the batch stops
 * there. An empty batch ends the search.
 */
export function randomBatch(
  run: SearchRun,
  strategy: string,
  maxFailCount: number,
  sample: (round: RejectionTally) => Candidate | undefined,
): MeasureCandidate[] | undefined {
  const batch = run.nextBatchSize();
  if (batch === 0) return undefined;
  const round = new RejectionTally();
  const picked: Candidate[] = [];
  const pickedHashes = new Set<string>();
  for (let slot = 0; slot < batch; slot++) {
    let found: Candidate | undefined;
    for (let fails = 0; found === undefined && fails < maxFailCount; fails++) {
      const c = sample(round);
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
  run.logRound(strategy, picked.length, round);
  if (picked.length > 0) return handedOut;
  run.ctx.log("warn", `[${run.ctx.taskName}] ${strategy}: no new valid candidate in ${maxFailCount} tries; the search ends (rejected: ${round.summary()})`);
  return run.finish();
}

export function checkMaxFailCount(strategy: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) throw new MetaScheduleError(`${strategy}: maxFailCount must be a positive integer, got ${value}`);
}

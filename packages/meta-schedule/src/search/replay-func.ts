/**
 * Random search by re-running the space generator (TVM's `ReplayFunc`): every candidate is a
 * fresh design space — the space function run again with a new seed — plus the postprocessors.
 * Unlike ReplayTrace it follows a space function whose *structure* depends on what it sampled
 * (`if (sch.get(v) === 1) sch.split(…)`), which a replayed trace cannot: the trace keeps the
 * branch taken when it was recorded.
 */
import { TesseraError } from "@tessera/ir";
import { MetaScheduleError, SpaceGenerationError } from "../errors.js";
import type { RunnerResult } from "../runner/runner.js";
import type { SpaceGenerator } from "../space/space-generator.js";
import type { TuneContext } from "../tune-context.js";
import type { Candidate } from "./candidate-replayer.js";
import { RejectionTally } from "./rejection-tally.js";
import { DUPLICATE_OF_MEASURED, SearchRun, requireRun } from "./search-run.js";
import type { MeasureCandidate, PreTuningOptions, SearchStrategy } from "./search-strategy.js";

export interface ReplayFuncConfig {
  /** Failed tries per slot before the batch is cut short. */
  readonly maxFailCount: number;
}

export class ReplayFuncStrategy implements SearchStrategy {
  readonly name = "replayFunc";
  readonly config: ReplayFuncConfig;
  private run: SearchRun | undefined;
  private space: SpaceGenerator | undefined;

  constructor(config: Partial<ReplayFuncConfig> = {}) {
    this.config = { maxFailCount: 100, ...config };
    if (!Number.isSafeInteger(this.config.maxFailCount) || this.config.maxFailCount < 1) {
      throw new MetaScheduleError(`replayFunc: maxFailCount must be a positive integer, got ${this.config.maxFailCount}`);
    }
  }

  preTuning(ctx: TuneContext, opts: PreTuningOptions): void {
    this.run = new SearchRun(ctx, opts, this.name);
    this.space = opts.space;
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
        const c = this.sampleSpaceFunction(run, round);
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

  rejectionTally(): ReadonlyArray<readonly [string, number]> {
    return this.run?.rejections.entries() ?? [];
  }

  /** One design space of a fresh run of the space generator, postprocessed. */
  private sampleSpaceFunction(run: SearchRun, round: RejectionTally): Candidate | undefined {
    let spaces;
    try {
      spaces = this.space!.generateDesignSpace(run.ctx);
    } catch (err) {
      if (!(err instanceof SpaceGenerationError)) throw err;
      round.add("the space function failed");
      run.ctx.log("debug", `[${run.ctx.taskName}] ${this.name}: ${err.message}`);
      return undefined;
    }
    const sch = spaces[run.rng.int(0, spaces.length)]!;
    sch.enterPostproc();
    for (const postproc of run.postprocs) {
      let result;
      try {
        result = postproc.apply(sch, run.ctx);
      } catch (err) {
        if (!(err instanceof TesseraError)) throw err;
        round.add(`postproc ${postproc.name} failed`);
        return undefined;
      }
      if (!result.ok) {
        round.add(`postproc ${postproc.name}: ${result.reason}`);
        return undefined;
      }
    }
    return { sch, ...run.replayer.identity.identify(sch) };
  }
}

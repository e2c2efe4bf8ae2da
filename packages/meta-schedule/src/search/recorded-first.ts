/**
 * A search that first measures the design spaces as recorded (each trace with its own decisions), then
 * hands over to another strategy (docs/architecture/meta-schedule-notes.md).
 */
import { argsInfoOf } from "../arg-info.js";
import { MetaScheduleError } from "../errors.js";
import type { RunnerResult } from "../interfaces/runner.js";
import { replayWithPostprocs } from "../space/replay.js";
import type { TuneContext } from "../tune-context.js";
import { ProgramIdentity } from "./candidate-replayer.js";
import { RejectionTally } from "./rejection-tally.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { PreTuningOptions, SearchStrategy } from "../interfaces/search-strategy.js";

export class RecordedFirst implements SearchStrategy {
  readonly name: string;
  private opts: PreTuningOptions | undefined;
  private phase: "not started" | "recorded" | "inner" = "not started";
  private recordedCount = 0;
  private innerPreTuned = false;
  private readonly rejections = new RejectionTally();

  constructor(private readonly inner: SearchStrategy) {
    this.name = `recordedFirst(${inner.name})`;
  }

  initialize(ctx: TuneContext): void {
    this.inner.initialize?.(ctx);
  }

  preTuning(_ctx: TuneContext, opts: PreTuningOptions): void {
    this.opts = opts;
    this.phase = "not started";
    this.recordedCount = 0;
    this.innerPreTuned = false;
  }

  generateMeasureCandidates(ctx: TuneContext): MeasureCandidate[] | undefined | Promise<MeasureCandidate[] | undefined> {
    const opts = this.opts;
    if (opts === undefined) throw new MetaScheduleError(`${this.name}.generateMeasureCandidates called before preTuning`);
    if (this.phase === "not started") {
      this.phase = "recorded";
      const recorded = this.recordedCandidates(ctx, opts);
      this.recordedCount = recorded.length;
      if (recorded.length > 0) {
        ctx.log("info", `[${ctx.taskName}] ${this.name}: ${recorded.length} design space(s) measured with their recorded decisions first`);
        return recorded;
      }
    }
    if (this.phase === "recorded") {
      this.phase = "inner";
      const maxTrials = opts.maxTrials - this.recordedCount;
      if (maxTrials <= 0) return undefined;
      this.inner.preTuning(ctx, { ...opts, maxTrials });
      this.innerPreTuned = true;
    }
    return this.innerPreTuned ? this.inner.generateMeasureCandidates(ctx) : undefined;
  }

  /** The design spaces replayed as recorded, postprocessed, distinct, at most one batch. */
  private recordedCandidates(ctx: TuneContext, opts: PreTuningOptions): MeasureCandidate[] {
    const limit = Math.min(opts.maxTrials, opts.numTrialsPerIter);
    const identity = new ProgramIdentity();
    const seen = new Set<string>();
    const argsInfo = argsInfoOf(ctx.workload.func);
    const out: MeasureCandidate[] = [];
    for (const space of opts.designSpaces) {
      if (out.length >= limit) break;
      const replayed = replayWithPostprocs(ctx, space.trace, opts.space.postprocs, { seed: ctx.rng.forkSeed() });
      if (!replayed.ok) {
        this.rejections.add(`recorded decisions: ${replayed.reason}`);
        continue;
      }
      const { hash } = identity.identify(replayed.sch);
      if (seen.has(hash)) continue;
      seen.add(hash);
      out.push({ sch: replayed.sch, argsInfo });
    }
    return out;
  }

  notifyRunnerResults(ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    // The recorded batch was not the inner strategy's: it learns of it from the database.
    if (this.phase === "inner" && this.innerPreTuned) this.inner.notifyRunnerResults(ctx, candidates, results);
  }

  postTuning(ctx: TuneContext): void {
    if (this.innerPreTuned) this.inner.postTuning(ctx);
  }

  rejectionTally(): ReadonlyArray<readonly [string, number]> {
    const all = new RejectionTally();
    all.addAll(this.rejections);
    for (const [reason, n] of this.inner.rejectionTally?.() ?? []) all.add(reason, n);
    return all.entries();
  }
}

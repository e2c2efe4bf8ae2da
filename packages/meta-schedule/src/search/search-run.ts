/**
 * What a search strategy keeps between `preTuning` and `postTuning`: the options checked, the
 * design spaces as traces (simplified, without postprocessing), its random engine, the trial
 * count, the programs already handed out, and the tally of rejected candidates.
 */
import { RandomEngine, type Trace } from "@tessera/schedule";
import { type ArgInfo, argsInfoOf } from "../arg-info.js";
import type { CostModel } from "../interfaces/cost-model.js";
import type { Database } from "../interfaces/database.js";
import { MetaScheduleError } from "../errors.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import type { Postproc } from "../interfaces/postproc.js";
import type { TuneContext } from "../tune-context.js";
import type { Workload } from "../workload.js";
import { type Candidate, CandidateReplayer, traceKeyOf } from "./candidate-replayer.js";
import { RejectionTally } from "./rejection-tally.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { PreTuningOptions } from "../interfaces/search-strategy.js";
import type { ReplayPool } from "./replay-pool.js";

export const DUPLICATE_OF_MEASURED = "duplicate of a candidate already measured";

export class SearchRun {
  readonly maxTrials: number;
  readonly numTrialsPerIter: number;
  readonly designSpaces: readonly Trace[];
  readonly database: Database;
  /** The workload as the database knows it. */
  readonly workload: Workload;
  readonly costModel: CostModel | undefined;
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];
  readonly rng: RandomEngine;
  readonly replayer: CandidateReplayer;
  readonly argsInfo: readonly ArgInfo[];
  /** Structural hashes of the programs handed out for measurement (and of measured records replayed). */
  private readonly measuredHashes = new Set<string>();
  /** Digests of the traces handed out or recorded in the database for this workload: the same trace is the same program. */
  private readonly measuredTraces = new Set<string>();
  /** Every rejection since `preTuning`. */
  readonly rejections = new RejectionTally();
  trialsIssued = 0;
  resultsReceived = 0;
  /** Set when the strategy has said the search is over; every later call says so again. */
  finished = false;

  constructor(
    readonly ctx: TuneContext,
    opts: PreTuningOptions,
    strategy: string,
    pool?: ReplayPool,
  ) {
    const bad = (what: string) => new MetaScheduleError(`${strategy}.preTuning (task ${ctx.taskName}): ${what}`);
    if (!Number.isSafeInteger(opts.maxTrials) || opts.maxTrials < 0) throw bad(`maxTrials must be a non-negative integer, got ${opts.maxTrials}`);
    if (!Number.isSafeInteger(opts.numTrialsPerIter) || opts.numTrialsPerIter < 1) {
      throw bad(`numTrialsPerIter must be a positive integer, got ${opts.numTrialsPerIter}`);
    }
    if (opts.designSpaces.length === 0) throw bad("the space generator produced no design space");
    this.maxTrials = opts.maxTrials;
    this.numTrialsPerIter = opts.numTrialsPerIter;
    this.designSpaces = opts.designSpaces.map((s) => s.trace.simplified({ removePostproc: true }));
    this.database = opts.database;
    this.costModel = opts.costModel;
    this.postprocs = opts.space.postprocs;
    this.mutators = opts.space.mutators;
    this.rng = new RandomEngine(ctx.rng.forkSeed());
    this.replayer = new CandidateReplayer(ctx, this.postprocs, this.rng, pool);
    this.argsInfo = argsInfoOf(ctx.workload.func);
    this.workload = this.database.commitWorkload(ctx.workload.func);
    for (const r of this.database.getAllTuningRecords()) if (r.workload.hash === this.workload.hash) this.measuredTraces.add(traceKeyOf(r.trace));
  }

  /**
   * This run drawing from `rng` instead (its replayer too), sharing everything else: what was
   * handed out, the database, the cost model. A first-round island evolves on one, concurrently
   * with the round's own population, so that its draws depend on its stream alone.
   */
  withRandomStream(rng: RandomEngine): SearchRun {
    const view = Object.create(this) as SearchRun;
    Object.defineProperty(view, "rng", { value: rng });
    Object.defineProperty(view, "replayer", { value: this.replayer.drawingFrom(rng) });
    return view;
  }

  /** Was this program handed out already, or is it in the database? */
  isMeasured(c: Candidate): boolean {
    return this.measuredHashes.has(c.hash) || this.measuredTraces.has(c.traceKey);
  }

  markMeasured(c: Candidate): void {
    this.measuredHashes.add(c.hash);
    this.measuredTraces.add(c.traceKey);
  }

  /** Trials left to hand out in the next batch (0 when the budget is used or the search is over). */
  nextBatchSize(): number {
    if (this.finished) return 0;
    return Math.max(0, Math.min(this.numTrialsPerIter, this.maxTrials - this.trialsIssued));
  }

  /** Whether a batch of `size` trials would use the rest of the budget. */
  isLastBatch(size: number): boolean {
    return size > 0 && this.trialsIssued + size >= this.maxTrials;
  }

  /** Ends the search (the strategy returns undefined from now on). */
  finish(): undefined {
    this.finished = true;
    return undefined;
  }

  /** Hands candidates out: marks them measured, counts the trials, and remembers them for their records' replays. */
  handOut(candidates: readonly Candidate[]): MeasureCandidate[] {
    for (const c of candidates) this.markMeasured(c);
    this.replayer.remember(candidates);
    this.trialsIssued += candidates.length;
    return candidates.map((c) => ({ sch: c.sch, argsInfo: this.argsInfo, ...(c.estimate === undefined ? {} : { estimate: c.estimate }) }));
  }

  logRound(strategy: string, handedOut: number, round: RejectionTally): void {
    this.ctx.log(
      "info",
      `[${this.ctx.taskName}] ${strategy}: ${handedOut} candidate(s) to measure (${this.trialsIssued}/${this.maxTrials} trials); rejected this round: ${round.summary()}`,
    );
  }
}

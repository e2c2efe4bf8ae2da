/**
 * A search strategy (TVM's `SearchStrategy`): asked for a batch of candidates to measure, told
 * the results, until it has used its trials or finds nothing new.
 */
import type { Schedule } from "@tessera/schedule";
import type { MeasureCandidate } from "./candidate.js";
import type { CostModel } from "./cost-model.js";
import type { Database } from "./database.js";
import type { RunnerResult } from "./runner.js";
import type { SpaceGenerator } from "./space-generator.js";
import type { TuneContext } from "../tune-context.js";

export interface PreTuningOptions {
  readonly maxTrials: number;
  readonly numTrialsPerIter: number;
  readonly designSpaces: readonly Schedule[];
  readonly space: SpaceGenerator;
  readonly database: Database;
  readonly costModel: CostModel | undefined;
}

export interface SearchStrategy {
  readonly name: string;
  initialize?(ctx: TuneContext): void;
  preTuning(ctx: TuneContext, opts: PreTuningOptions): void;
  /** The next batch, or undefined when the search is over (trials used, or nothing new to try); a promise when the search works in other threads. */
  generateMeasureCandidates(ctx: TuneContext): MeasureCandidate[] | undefined | Promise<MeasureCandidate[] | undefined>;
  notifyRunnerResults(ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void;
  postTuning(ctx: TuneContext): void;
  /**
   * Why candidates were rejected since `preTuning` (reason, count), most frequent first, for the
   * tuning log; also counts mutation attempts that made no candidate ("mutator M found nothing to
   * change", "mutator M failed"), which are not rejections.
   */
  rejectionTally?(): ReadonlyArray<readonly [reason: string, count: number]>;
}

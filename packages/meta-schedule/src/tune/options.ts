/**
 * The options of `tuneTIR` / `tuneTasks` (TVM's `tune_tir` / `tune_tasks` arguments): each
 * component by name (made by tune/provided.ts) or as an instance.
 */
import type { Builder } from "../interfaces/builder.js";
import type { CostModel } from "../interfaces/cost-model.js";
import type { Database } from "../interfaces/database.js";
import type { Runner } from "../interfaces/runner.js";
import type { SearchStrategy } from "../interfaces/search-strategy.js";
import type { ReplayPool } from "../search/replay-pool.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";
import type { TaskScheduler, TrialEvent } from "../task-scheduler/task-scheduler.js";
import type { Logger } from "../tune-context.js";
import type { CostModelName, DatabaseName, RunnerName, ScheduleFnLike, StrategyName } from "./provided.js";

export interface TuneOptions {
  /** Where the JSON database, the tuning history and the tuning curve go (created when missing). */
  readonly workDir: string;
  readonly maxTrialsGlobal: number;
  /** maxTrialsGlobal by default. */
  readonly maxTrialsPerTask?: number;
  /** 64 by default. */
  readonly numTrialsPerIter?: number;
  /** "auto": the default post-order-apply space of the target; or a schedule function; or a space generator. */
  readonly space?: "auto" | ScheduleFnLike | SpaceGenerator;
  /** "evolutionary" by default; a factory makes one strategy per task (an instance serves one task only). */
  readonly strategy?: StrategyName | SearchStrategy | (() => SearchStrategy);
  /** "hybrid" by default: the analytic latency model as a prior, corrected by the learned forest ("xgb") as measurements come in; TVM defaults to XGBoost alone. */
  readonly costModel?: CostModelName | CostModel;
  /** "local" by default. */
  readonly builder?: "local" | Builder;
  /** "local" (the GPU) by default; "simulated" needs no GPU. */
  readonly runner?: RunnerName | Runner;
  /**
   * Whether the runner's times are estimates, not measurements: the trial log and the summary
   * table then label every figure "(estimated)". True by default for `runner: "simulated"`; give it
   * for a runner that estimates some other way (a queue of simulated runners).
   */
  readonly estimatedTimes?: boolean;
  /** "json" (in workDir) by default. */
  readonly database?: DatabaseName | Database;
  /** "gradient" (TVM's default) or "round-robin". */
  readonly taskScheduler?: "gradient" | "round-robin" | TaskScheduler;
  /** Seed of every random choice of the run (random when absent). */
  readonly seed?: number;
  /** Threads of the CPU-side work of each task (the machine's cores by default). */
  readonly numThreads?: number;
  /**
   * Worker threads that replay, postprocess and lower the evolutionary search's candidates (the
   * machine's cores less one by default; 0: in the search's own thread). They start only once the
   * search has spent about 4 CPU s replaying in its own thread, so a small run starts none. The same
   * seed picks the same candidates with any number.
   */
  readonly searchWorkers?: number;
  /**
   * Search worker threads the caller made (and may have warmed ahead, `warmReplayPool`, while it
   * did other work): used instead of a pool of `searchWorkers`, and left to the caller to dispose
   * (it may serve several runs).
   */
  readonly searchPool?: ReplayPool;
  /**
   * Search the next batch while the current one builds and runs (false by default, as TVM): the
   * search then learns each batch's results one batch later. Records stay deterministic.
   */
  readonly overlapSearch?: boolean;
  /**
   * With overlapSearch, a task's last batch waits for the measurements of its first too, when it
   * follows it (false by default: a two-batch run's second batch is picked before anything is
   * measured; TaskSchedulerOptions.lastBatchSeesFirst). Refused without overlapSearch.
   */
  readonly lastBatchSeesFirst?: boolean;
  /** Receives the trial lines, the summary table and the scheduler's messages. */
  readonly logger?: Logger;
  /** Log the summary table at the end at info level (true by default; false: at debug level, for the log file only; the result has it in any case). */
  readonly logSummary?: boolean;
  /** Called after every trial with the run's progress. */
  readonly onProgress?: (progress: TuneProgress) => void;
  /** Write `tuning-curve.svg` (and `.png`) into the work dir (true by default). */
  readonly writeCurve?: boolean;
  /** The curve's legend entry ("<strategy>, seed <seed>" by default). */
  readonly runName?: string;
  /** The curve's title ("<function names> on <target>" by default). */
  readonly curveTitle?: string;
}

export interface TuneProgress {
  readonly trial: TrialEvent;
  /** Trials measured so far over all tasks. */
  readonly trialsDone: number;
  readonly maxTrialsGlobal: number;
  /** FLOP of the tasks, to turn the latencies into GFLOPS (sum over tasks, weighted). */
  readonly totalFlop: number;
}

/**
 * The task scheduler (TVM's `TaskScheduler::Tune`): tunes several tasks under one trial budget.
 * Each round it picks a task (the policy of the subclass), asks the task's search strategy for a
 * batch of candidates, builds them, runs those that built (a build failure is an immediate
 * failed result), tells the strategy, runs the measure callbacks (database, cost model) and logs
 * every trial. A task is done when it has used its trials or its strategy has nothing new.
 */
import type { PrimFunc } from "@tessera/ir";
import type { Builder, BuilderResult } from "../interfaces/builder.js";
import type { CostModel } from "../interfaces/cost-model.js";
import type { Database } from "../interfaces/database.js";
import { MetaScheduleError } from "../errors.js";
import { formatTuningSummary } from "../report/summary-table.js";
import { FAILED_RUN_SECS, type Runner, type RunnerInput, type RunnerResult } from "../interfaces/runner.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import { type Logger, silentLogger } from "../tune-context.js";
import { type MeasureCallback, defaultMeasureCallbacks } from "./measure-callback.js";
import { TaskRecord, type TuneTask, medianRunSecs } from "./task-record.js";
import { type TrialOutcome, formatTrialLine } from "./trial-log.js";
import { checkedRunnerResult } from "../database/run-secs.js";

export interface TaskSchedulerOptions {
  readonly builder: Builder;
  readonly runner: Runner;
  readonly database: Database;
  readonly costModel?: CostModel | undefined;
  /** Trials over all tasks; the last batch may pass it, as in TVM. */
  readonly maxTrialsGlobal: number;
  /** Trials of one task (maxTrialsGlobal by default). */
  readonly maxTrialsPerTask?: number | undefined;
  /** Candidates asked of a strategy per round (64 by default). */
  readonly numTrialsPerIter?: number | undefined;
  /** AddToDatabase and UpdateCostModel by default. */
  readonly measureCallbacks?: readonly MeasureCallback[] | undefined;
  /** The scheduler's own messages (the summary table, finished tasks); trials go to each task's logger. */
  readonly log?: Logger | undefined;
  /** Called after every trial, in measuring order. */
  readonly onTrial?: ((event: TrialEvent) => void) | undefined;
  /** Log the summary table at the end at info level (true by default; false: at debug level, like the table after every batch). */
  readonly logSummary?: boolean | undefined;
  /** The runner estimates instead of measuring (the simulated runner): trial lines and tables label their figures as estimates. */
  readonly estimated?: boolean | undefined;
  /**
   * Search the next batch while this one builds and runs, and build it while this one is measured
   * (false by default). The search then sees the results of the batches before the one in flight
   * only; batches are measured one after another, in a fixed order, so a seed still gives the same
   * records.
   */
  readonly overlapSearch?: boolean | undefined;
  /**
   * With overlapSearch, whether a task's last batch also waits for its first batch's measurements
   * when it follows that batch (a run of two batches: its second is then picked with the first's
   * results, half of it neighbours of their best). False by default: the second batch is picked
   * by the prior alone, as the first (session 11 found it better then).
   */
  readonly lastBatchSeesFirst?: boolean | undefined;
}

/** A batch handed out and being built and run. */
interface InFlight {
  readonly task: TaskRecord;
  readonly candidates: readonly MeasureCandidate[];
  readonly trialsBefore: number;
  readonly measured: Promise<Measured>;
  /** When `measured` settled (performance.now()), undefined while the batch is built or run. */
  settledAt?: number;
}

interface Measured {
  readonly builderResults: readonly BuilderResult[];
  readonly runnerResults: readonly RunnerResult[];
}

export interface TrialEvent {
  readonly taskId: number;
  readonly taskName: string;
  /** 1-based trial number within the task. */
  readonly trial: number;
  /** 1-based trial number over all tasks. */
  readonly globalTrial: number;
  /** Seconds (the median of run_secs), FAILED_RUN_SECS for a failed trial. */
  readonly latencySecs: number;
  /** The task's best latency so far, FAILED_RUN_SECS while none succeeded. */
  readonly bestSecs: number;
  /** The best latency so far of the whole run when there is one task; the sum of tasks' weighted bests otherwise. */
  readonly totalBestSecs: number;
  readonly ok: boolean;
  readonly error?: string;
}

export const DEFAULT_NUM_TRIALS_PER_ITER = 64;

/** Until when, between `from` and `to`, a batch was being built or run: `from` when none was. */
function inFlightUntil(batch: InFlight | undefined, from: number, to: number): number {
  if (batch === undefined) return from;
  return batch.settledAt ?? to;
}

function requirePositiveInteger(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new MetaScheduleError(`${what} must be a positive integer, got ${value}`);
  return value;
}

export abstract class TaskScheduler {
  abstract readonly name: string;
  protected tasks: TaskRecord[] = [];

  /** The index of the task to tune next among those not done, or -1 when all are done. */
  protected abstract nextTaskId(): number;

  /** Tunes the tasks; returns their records (trials, latencies, best history, done). */
  async tune(tuneTasks: readonly TuneTask[], opts: TaskSchedulerOptions): Promise<TaskRecord[]> {
    if (tuneTasks.length === 0) throw new MetaScheduleError("the task scheduler needs at least one task to tune");
    const maxTrialsGlobal = requirePositiveInteger("maxTrialsGlobal", opts.maxTrialsGlobal);
    const maxTrialsPerTask = requirePositiveInteger("maxTrialsPerTask", opts.maxTrialsPerTask ?? maxTrialsGlobal);
    const numTrialsPerIter = requirePositiveInteger("numTrialsPerIter", opts.numTrialsPerIter ?? DEFAULT_NUM_TRIALS_PER_ITER);
    const callbacks = opts.measureCallbacks ?? defaultMeasureCallbacks();
    const log = opts.log ?? silentLogger;
    this.tasks = tuneTasks.map((t, id) => new TaskRecord(id, t));

    for (const task of this.tasks) {
      task.ctx.log("info", `Initializing Task #${task.id}: "${task.name}"`);
      task.space.initialize?.(task.ctx);
      task.strategy.initialize?.(task.ctx);
      task.designSpaces = task.space.generateDesignSpace(task.ctx);
      task.designSpaces.forEach((sch, i) => task.ctx.log("debug", `[Task #${task.id}: ${task.name}] Design space #${i}:\n${sch.trace.show()}`));
      task.strategy.preTuning(task.ctx, {
        maxTrials: maxTrialsPerTask,
        numTrialsPerIter,
        designSpaces: task.designSpaces,
        space: task.space,
        database: opts.database,
        costModel: opts.costModel,
      });
    }

    let totalTrials = 0;
    const measure = { ...opts, callbacks };
    let inFlight: InFlight | undefined;
    const join = async (): Promise<void> => {
      const batch = inFlight;
      inFlight = undefined;
      if (batch === undefined) return;
      this.record(batch.task, batch.candidates, await batch.measured, measure, batch.trialsBefore);
      log("debug", `\n${formatTuningSummary(this.tasks, { estimated: opts.estimated })}`);
    };
    while (totalTrials < maxTrialsGlobal) {
      const taskId = this.nextTaskId();
      if (taskId === -1) break;
      const task = this.tasks[taskId]!;
      if (task.trials >= maxTrialsPerTask) {
        this.terminate(task, log);
        continue;
      }
      // With overlapSearch, a task's last batch is searched once every earlier batch of it is
      // measured, since no later search could use what the batch in flight finds. Not when that
      // batch is the task's first (unless lastBatchSeesFirst): a second round picked from one
      // measured round did worse on the H200 than one picked by the prior alone
      // (docs/benchmarks/search-quality.md, session 11).
      const firstInFlight = task.trials === 0;
      if (
        inFlight?.task === task &&
        (!firstInFlight || opts.lastBatchSeesFirst === true) &&
        this.isLastBatch(task, inFlight, maxTrialsPerTask, maxTrialsGlobal - totalTrials, numTrialsPerIter)
      ) {
        await join();
      }
      const searchStarted = performance.now();
      const loopBefore = performance.eventLoopUtilization();
      const overlapped = inFlight;
      const candidates = await task.strategy.generateMeasureCandidates(task.ctx);
      const searchEnded = performance.now();
      task.phaseMs.search += searchEnded - searchStarted;
      task.phaseMs.searchBusy += performance.eventLoopUtilization(loopBefore).active;
      task.phaseMs.searchAlone += searchEnded - Math.min(searchEnded, Math.max(searchStarted, inFlightUntil(overlapped, searchStarted, searchEnded)));
      // With overlapSearch, this batch builds at once, while the one in flight is still measured;
      // its own measuring waits for that one's.
      const measured = candidates === undefined || candidates.length === 0 ? undefined : this.buildAndRun(task, candidates, opts, inFlight?.measured);
      // Its failure surfaces when it is joined, not as an unhandled rejection while the next batch is searched.
      measured?.catch(() => {});
      // The batch in flight is joined after the next one is searched (overlapSearch) or at once.
      await join();
      if (candidates === undefined || candidates.length === 0 || measured === undefined) {
        this.terminate(task, log);
        continue;
      }
      totalTrials += candidates.length;
      const batch: InFlight = { task, candidates, trialsBefore: totalTrials - candidates.length, measured };
      const settled = () => {
        batch.settledAt = performance.now();
      };
      measured.then(settled, settled);
      inFlight = batch;
      if (opts.overlapSearch !== true) await join();
    }
    await join();
    for (const task of this.tasks) {
      if (!task.done) this.terminate(task, log);
      task.strategy.postTuning(task.ctx);
    }
    log(opts.logSummary === false ? "debug" : "info", `\n${formatTuningSummary(this.tasks, { estimated: opts.estimated })}`);
    return this.tasks;
  }

  /** Whether the task's next batch is its last: the trials left to it, besides its batch in flight, fit one batch. */
  private isLastBatch(task: TaskRecord, inFlight: InFlight, maxTrialsPerTask: number, globalTrialsLeft: number, numTrialsPerIter: number): boolean {
    const taskTrialsLeft = maxTrialsPerTask - task.trials - inFlight.candidates.length;
    return Math.min(taskTrialsLeft, globalTrialsLeft) <= numTrialsPerIter;
  }

  private terminate(task: TaskRecord, log: Logger): void {
    task.done = true;
    const remaining = this.tasks.filter((t) => !t.done).length;
    log("info", `Task #${task.id} has finished. Remaining task(s): ${remaining}`);
  }

  /**
   * Builds and runs one batch; touches no state of the search, so that the next batch can be
   * searched meanwhile. Its run starts once `previous` (the batch measured before it) has settled:
   * candidates are never timed side by side.
   */
  private async buildAndRun(
    task: TaskRecord,
    candidates: readonly MeasureCandidate[],
    opts: TaskSchedulerOptions,
    previous?: Promise<unknown>,
  ): Promise<Measured> {
    const buildStarted = performance.now();
    const builderResults = await opts.builder.build(candidates.map((c) => ({ func: c.sch.func, target: task.ctx.target })));
    if (builderResults.length !== candidates.length) {
      throw new MetaScheduleError(`builder ${opts.builder.name} returned ${builderResults.length} results for ${candidates.length} candidates`);
    }
    task.phaseMs.build += performance.now() - buildStarted;
    await previous?.catch(() => {});
    const runStarted = performance.now();
    const runnerResults = await this.runBuilt(candidates, builderResults, opts.runner, task.ctx.workload.func);
    task.phaseMs.run += performance.now() - runStarted;
    return { builderResults, runnerResults };
  }

  /** Joins one measured batch: results to the strategy, the callbacks and the log. */
  private record(
    task: TaskRecord,
    candidates: readonly MeasureCandidate[],
    { builderResults, runnerResults }: Measured,
    opts: TaskSchedulerOptions & { callbacks: readonly MeasureCallback[] },
    trialsBefore: number,
  ): void {
    const secs = (ms: number): string => (ms / 1000).toFixed(1);
    task.ctx.log(
      "info",
      `[Task #${task.id}: ${task.name}] batch of ${candidates.length}: time so far in search ${secs(task.phaseMs.search)} s (its thread busy ${secs(task.phaseMs.searchBusy)} s, no batch in flight ${secs(task.phaseMs.searchAlone)} s), build ${secs(task.phaseMs.build)} s, run ${secs(task.phaseMs.run)} s`,
    );
    task.strategy.notifyRunnerResults(task.ctx, candidates, runnerResults);
    for (const callback of opts.callbacks) {
      callback.apply({ task, candidates, builderResults, runnerResults, database: opts.database, costModel: opts.costModel });
    }
    runnerResults.forEach((result, i) => {
      const built = builderResults[i]!;
      const latencySecs = medianRunSecs(result);
      task.latencies.push(latencySecs);
      if (!built.ok) task.buildErrors++;
      else if (!result.ok) task.runErrors++;
      const outcome: TrialOutcome = !built.ok
        ? { ok: false, stage: "building", error: built.error }
        : !result.ok
          ? { ok: false, stage: "running", error: result.error }
          : latencySecs >= FAILED_RUN_SECS
            ? { ok: false, stage: "running", error: "the runner reported no run time" }
            : { ok: true, latencySecs };
      task.ctx.log(outcome.ok ? "info" : "warn", formatTrialLine(task, task.trials, outcome, opts.estimated === true));
      opts.onTrial?.({
        taskId: task.id,
        taskName: task.name,
        trial: task.trials,
        globalTrial: trialsBefore + i + 1,
        latencySecs,
        bestSecs: task.bestLatency,
        totalBestSecs: this.totalBestSecs(),
        ok: outcome.ok,
        ...(outcome.ok ? {} : { error: outcome.error }),
      });
    });
    task.bestHistory.push(task.bestLatency);
  }

  /** Runs the candidates that built; those that did not get their build error as a failed run. */
  private async runBuilt(
    candidates: readonly MeasureCandidate[],
    builderResults: readonly BuilderResult[],
    runner: Runner,
    workload: PrimFunc,
  ): Promise<RunnerResult[]> {
    const inputs: RunnerInput[] = [];
    const slots: number[] = [];
    builderResults.forEach((built, i) => {
      if (!built.ok) return;
      inputs.push({ artifact: built.artifact, argsInfo: candidates[i]!.argsInfo, workload });
      slots.push(i);
    });
    const ran = inputs.length === 0 ? [] : await runner.run(inputs);
    if (ran.length !== inputs.length) throw new MetaScheduleError(`runner ${runner.name} returned ${ran.length} results for ${inputs.length} inputs`);
    const results: RunnerResult[] = builderResults.map((built) => ({ ok: false, error: built.ok ? "not run" : `build failed: ${built.error}` }));
    slots.forEach((slot, k) => {
      // A runner's impossible times (none, 0, negative, not finite) are a failure, never a best.
      results[slot] = checkedRunnerResult(ran[k]!);
    });
    return results;
  }

  /** Sum over tasks of weight × best latency (tasks without a valid run count as nothing). */
  private totalBestSecs(): number {
    let total = 0;
    let any = false;
    for (const t of this.tasks) {
      if (!t.hasValidRun) continue;
      total += t.weight * t.bestLatency;
      any = true;
    }
    return any ? total : FAILED_RUN_SECS;
  }
}

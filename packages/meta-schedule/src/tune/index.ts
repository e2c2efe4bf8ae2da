/**
 * TVM's `tune_tir` and `tune_tasks`: tune one function (or each function of a module) or several
 * under one trial budget, with a design space, a search strategy, a cost model, a builder, a
 * runner and a database — each named (by default those of TVM: the default space of the target,
 * evolutionary search, the local builder and GPU runner, a JSON database in the work dir, the
 * gradient-based task scheduler; but the "hybrid" cost model, the analytic prior corrected by the
 * XGBoost-style forest, where TVM has XGBoost alone) or given. Returns the best record and
 * schedule of each task and the history of every trial; writes the tuning history and curve
 * into the work dir.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { target as resolveTarget } from "@tessera/codegen";
import type { IRModule, PrimFunc } from "@tessera/ir";
import { RandomEngine, type Schedule } from "@tessera/schedule";
import type { Builder } from "../interfaces/builder.js";
import type { CostModel } from "../interfaces/cost-model.js";
import type { Database, TuningRecord } from "../interfaces/database.js";
import { MetaScheduleError, MissingPeerDependencyError } from "../errors.js";
import { formatTuningSummary } from "../report/summary-table.js";
import { bestSoFarPoints, writeTuningCurve } from "../report/tuning-curve.js";
import { FAILED_RUN_SECS, type Runner } from "../interfaces/runner.js";
import type { SearchStrategy } from "../interfaces/search-strategy.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";
import { GradientBased } from "../task-scheduler/gradient-based.js";
import { RoundRobin } from "../task-scheduler/round-robin.js";
import type { TaskRecord, TuneTask } from "../task-scheduler/task-record.js";
import { estimateFlops } from "../task-scheduler/flops.js";
import type { TaskScheduler, TrialEvent } from "../task-scheduler/task-scheduler.js";
import { queryBestRecord, scheduleFromRecord } from "../database/apply-record.js";
import { fileLogger, taskLogFileName } from "./log-files.js";
import type { TuneOptions } from "./options.js";
import { defaultCostModelName, defaultSpaceFor, makeBuilder, makeCostModel, makeRunner, makeStrategy, openDatabase, scheduleFnSpace } from "./provided.js";
import { type Logger, type TuneTarget, silentLogger, tuneContext } from "../tune-context.js";
import { workloadOf } from "../workload.js";
import { lockWorkDir } from "../database/work-dir-lock.js";
import { ReplayPool, checkSearchWorkers, defaultSearchWorkers } from "../search/replay-pool.js";
import { SearchStrategyBase } from "../search/strategy-base.js";

export type { TuneOptions, TuneProgress } from "./options.js";

/** A function to tune, with its name in logs and its weight (how often it runs). */
export interface TuneFunction {
  readonly func: PrimFunc;
  readonly name?: string;
  readonly weight?: number;
}

export interface TaskResult {
  readonly name: string;
  readonly func: PrimFunc;
  readonly flop: number;
  readonly weight: number;
  readonly trials: number;
  /** Seconds; FAILED_RUN_SECS when no trial succeeded. */
  readonly bestLatency: number;
  readonly bestRecord: TuningRecord | undefined;
  readonly bestSchedule: Schedule | undefined;
}

export interface TuneResult {
  readonly tasks: readonly TaskResult[];
  /** Every trial in measuring order. */
  readonly history: readonly TrialEvent[];
  readonly database: Database;
  /** TVM's summary table. */
  readonly summary: string;
  readonly workDir: string;
  /** The files written into the work dir. */
  readonly files: { readonly history: string; readonly curveSvg?: string; readonly curvePng?: string };
}

export interface TuneTIRResult extends TuneResult {
  /** The best record and schedule of the (first) function. */
  readonly bestRecord: TuningRecord | undefined;
  readonly bestSchedule: Schedule | undefined;
}

/**
 * The target a tuning run is given: a target, or a target string as TVM's `tune_tir(mod, target="llvm")`
 * takes it (an unknown one is a TargetError naming the known targets).
 */
export function resolveTuneTarget(spec: TuneTarget | string): TuneTarget {
  return typeof spec === "string" ? resolveTarget(spec) : spec;
}

/** TVM's tune_tir: one task per function of the module (sorted by name), or the function itself. */
export async function tuneTIR(funcOrModule: PrimFunc | IRModule, target: TuneTarget | string, options: TuneOptions): Promise<TuneTIRResult> {
  const functions: TuneFunction[] =
    funcOrModule.kind === "PrimFunc"
      ? [{ func: funcOrModule }]
      : [...funcOrModule.functions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, func]) => ({ func, name }));
  const result = await tuneTasks(functions, target, options);
  const first = result.tasks[0]!;
  return { ...result, bestRecord: first.bestRecord, bestSchedule: first.bestSchedule };
}

/** TVM's tune_tasks: several functions tuned under one budget by the task scheduler. */
export async function tuneTasks(functions: readonly TuneFunction[], targetSpec: TuneTarget | string, options: TuneOptions): Promise<TuneResult> {
  if (functions.length === 0) throw new MetaScheduleError("tuneTasks: no function to tune");
  if (options.lastBatchSeesFirst === true && options.overlapSearch !== true) {
    throw new MetaScheduleError("tuneTasks: lastBatchSeesFirst needs overlapSearch (without it every batch is searched after the one before is measured)");
  }
  const target = resolveTuneTarget(targetSpec);
  const log = options.logger ?? silentLogger;
  const rng = new RandomEngine(options.seed);
  const owned: { dispose?(): Promise<void> }[] = [];
  await mkdir(options.workDir, { recursive: true });
  const lock = lockWorkDir(options.workDir, log);
  try {
    const database = await resolveDatabase(options);
    const costModel = await resolveCostModel(options, rng.forkSeed(), target);
    const builder = await resolve<Builder>(options.builder, "local", () => makeBuilder(), owned);
    const runner = await resolve<Runner>(options.runner, "local", (name) => makeRunner(name as "local" | "simulated", target), owned);
    const strategies = await resolveStrategies(options, functions.length);
    const pool = options.searchPool ?? searchPool(options, log);
    if (pool !== undefined && pool !== options.searchPool) owned.push(pool);
    for (const s of strategies) if (s instanceof SearchStrategyBase) s.useReplayPool(pool);
    const tasks: TuneTask[] = [];
    for (const [i, f] of functions.entries()) {
      const workload = workloadOf(f.func, f.name);
      const taskLog = fileLogger(options.workDir, taskLogFileName(i, workload.name), log);
      const ctx = tuneContext(workload, target, { seed: rng.forkSeed(), log: taskLog, numThreads: options.numThreads ?? availableParallelism() });
      tasks.push({ ctx, space: await resolveSpace(options, target), strategy: strategies[i]!, ...(f.weight === undefined ? {} : { weight: f.weight }) });
    }
    const scheduler = resolveScheduler(options, rng.forkSeed());

    const estimated = options.estimatedTimes ?? options.runner === "simulated";
    const totalFlop = functions.reduce((sum, f) => sum + estimateFlops(f.func) * (f.weight ?? 1), 0);
    const history: TrialEvent[] = [];
    const records = await scheduler.tune(tasks, {
      builder,
      runner,
      database,
      costModel,
      maxTrialsGlobal: options.maxTrialsGlobal,
      maxTrialsPerTask: options.maxTrialsPerTask,
      numTrialsPerIter: options.numTrialsPerIter,
      log: fileLogger(options.workDir, "task_scheduler.log", log),
      logSummary: options.logSummary,
      estimated,
      overlapSearch: options.overlapSearch,
      lastBatchSeesFirst: options.lastBatchSeesFirst,
      onTrial: (trial) => {
        history.push(trial);
        options.onProgress?.({ trial, trialsDone: history.length, maxTrialsGlobal: options.maxTrialsGlobal, totalFlop });
      },
    });

    const taskResults = records.map((record) => taskResult(record, database));
    const title = options.curveTitle ?? `${records.map((r) => r.name).join(", ")} on ${target.name}`;
    const files = await writeOutputs(options, history, runName(options), title, log);
    return { tasks: taskResults, history, database, summary: formatTuningSummary(records, { estimated }), workDir: options.workDir, files };
  } finally {
    for (const component of owned) await component.dispose?.();
    lock.release();
  }
}

function taskResult(record: TaskRecord, database: Database): TaskResult {
  const func = record.ctx.workload.func;
  const bestRecord = queryBestRecord(database, func);
  return {
    name: record.name,
    func,
    flop: record.flop,
    weight: record.weight,
    trials: record.trials,
    bestLatency: record.bestLatency,
    bestRecord,
    bestSchedule: bestRecord === undefined ? undefined : scheduleFromRecord(bestRecord, func),
  };
}

function runName(options: TuneOptions): string {
  if (options.runName !== undefined) return options.runName;
  const strategy = typeof options.strategy === "string" ? options.strategy : options.strategy === undefined ? "evolutionary" : "custom strategy";
  return options.seed === undefined ? strategy : `${strategy}, seed ${options.seed}`;
}

async function writeOutputs(options: TuneOptions, history: readonly TrialEvent[], name: string, title: string, log: Logger): Promise<TuneResult["files"]> {
  const historyFile = join(options.workDir, "tuning-history.json");
  const trials = history.map((t) => ({
    task: t.taskName,
    trial: t.globalTrial,
    latencySecs: t.ok ? t.latencySecs : null,
    bestSecs: t.totalBestSecs < FAILED_RUN_SECS ? t.totalBestSecs : null,
    ...(t.error === undefined ? {} : { error: t.error }),
  }));
  // Renamed into place: a run killed while writing leaves the previous history whole.
  await writeFileAtomically(historyFile, `${JSON.stringify({ run: name, trials }, null, 1)}\n`);
  if (options.writeCurve === false) return { history: historyFile };
  const points = bestSoFarPoints(history.map((t) => t.totalBestSecs));
  if (points.length === 0) return { history: historyFile };
  let written: Awaited<ReturnType<typeof writeTuningCurve>>;
  try {
    written = await writeTuningCurve(join(options.workDir, "tuning-curve.svg"), [{ name, points }], { title, png: true });
  } catch (err) {
    if (!(err instanceof MissingPeerDependencyError)) throw err;
    log("warn", `tuning curve not drawn: ${err.message}`);
    return { history: historyFile };
  }
  if (written.pngError !== undefined) log("warn", `tuning curve: SVG only, no PNG: ${written.pngError}`);
  return { history: historyFile, curveSvg: written.svg, ...(written.png === undefined ? {} : { curvePng: written.png }) };
}

async function resolve<T extends { dispose?(): Promise<void> }>(
  given: string | T | undefined,
  fallback: string,
  make: (name: string) => T,
  owned: { dispose?(): Promise<void> }[],
): Promise<T> {
  if (given !== undefined && typeof given !== "string") return given;
  const made = make(given ?? fallback);
  owned.push(made);
  return made;
}

async function resolveDatabase(options: TuneOptions): Promise<Database> {
  const given = options.database ?? "json";
  return typeof given === "string" ? openDatabase(given, options.workDir) : given;
}

async function resolveCostModel(options: TuneOptions, seed: number, target: TuneTarget): Promise<CostModel | undefined> {
  const given = options.costModel ?? defaultCostModelName(target);
  return typeof given === "string" ? makeCostModel(given, seed) : given;
}

async function resolveStrategies(options: TuneOptions, count: number): Promise<SearchStrategy[]> {
  const given = options.strategy ?? "evolutionary";
  if (typeof given === "string") return Promise.all(Array.from({ length: count }, () => makeStrategy(given)));
  if (typeof given === "function") return Array.from({ length: count }, () => given());
  if (count > 1) throw new MetaScheduleError(`a search strategy instance keeps one task's state; give a factory (() => strategy) to tune ${count} tasks`);
  return [given];
}

function searchPool(options: TuneOptions, log: Logger): ReplayPool | undefined {
  const workers = checkSearchWorkers(options.searchWorkers ?? defaultSearchWorkers(), "tuneTasks");
  // While batches are measured during the search, this thread keeps to feeding the runner.
  return workers === 0 ? undefined : new ReplayPool({ workers, log, callerShare: options.overlapSearch !== true });
}

async function resolveSpace(options: TuneOptions, target: TuneTarget): Promise<SpaceGenerator> {
  const given = options.space ?? "auto";
  if (given === "auto") return defaultSpaceFor(target);
  if (typeof given === "function") return scheduleFnSpace(given, target);
  return given;
}

function resolveScheduler(options: TuneOptions, seed: number): TaskScheduler {
  const given = options.taskScheduler ?? "gradient";
  if (given === "gradient") return new GradientBased({ seed });
  if (given === "round-robin") return new RoundRobin();
  return given;
}

async function writeFileAtomically(file: string, text: string): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  try {
    await writeFile(partial, text);
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

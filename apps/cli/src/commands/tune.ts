import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { TargetError, target as resolveTarget } from "@tessera/codegen";
import { TesseraError, irModule } from "@tessera/ir";
import {
  type Database,
  type Logger,
  type ScheduleFnLike,
  type SpaceGenerator,
  type TuneOptions,
  type TuneTarget,
  FAILED_RUN_SECS,
  STRATEGY_NAMES,
  type StrategyName,
  firstResultChecker,
  logDirOf,
  tuneTIR,
} from "@tessera/meta-schedule";
import { QueueRunner } from "@tessera/meta-schedule/measure-queue";
import { createProgressReporter } from "@tessera/meta-schedule/report";
import { Dispatcher, QueueConfigError, type WorkerCommand, measureDispatch, parseRedisUrl } from "@tessera/queue";
import { cuda } from "@tessera/runtime";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { withFp32PrecisionOption } from "../fp32-precision.js";
import { loadModule, pickFunction } from "../load.js";
import { loadScheduleFn } from "../space-file.js";
import { parseSeed } from "./run.js";
import { tuneSpec } from "./specs.js";
import { type TuneWorkers, startTuneWorkers } from "./tune-workers.js";
import { gpuList } from "./worker.js";
import { parseNonNegativeInt, parsePositiveInt } from "../int-options.js";

/** What the tune command takes from its environment; tests replace components with fakes. */
export interface TuneDeps {
  /** Whether candidates can run on a GPU here, and why not. */
  readonly gpu: () => { readonly available: boolean; readonly reason?: string | undefined };
  /** Where the progress bar or lines go (the CLI's stderr when absent; a terminal gets a bar). */
  readonly progressStream?: NodeJS.WritableStream & { readonly isTTY?: boolean };
  /** Components replacing the named defaults (strategy, cost model, builder, runner, database…). */
  readonly components?: Partial<Pick<TuneOptions, "strategy" | "costModel" | "builder" | "runner" | "database" | "taskScheduler">>;
  /** The space for `--space auto` (the package's default space of the target when absent). */
  readonly autoSpace?: (target: TuneTarget) => SpaceGenerator;
  /** The space of a schedule function from `--space FILE.ts` (the package's ScheduleFn when absent). */
  readonly scheduleFnSpace?: (fn: ScheduleFnLike) => SpaceGenerator;
  /** How `--gpus` starts `tessera worker` (default: this program again). */
  readonly workerCommand?: WorkerCommand;
}

export const defaultTuneDeps: TuneDeps = {
  gpu: () => ({ available: cuda.available(), reason: cuda.unavailableReason() }),
  progressStream: process.stderr,
};

/** A GPU target, or the host CPU (`c`, `llvm`, `llvm -mcpu=NAME`: candidates compiled by gcc and measured on this machine). */
export function targetOption(name: string): TuneTarget {
  try {
    return resolveTarget(name);
  } catch (err) {
    if (err instanceof TargetError) throw new CliError(`--target: ${err.message}`);
    throw err;
  }
}

function parseStrategy(raw: string | undefined): StrategyName {
  if (raw === undefined) return "evolutionary";
  if ((STRATEGY_NAMES as readonly string[]).includes(raw)) return raw as StrategyName;
  throw new CliError(`--strategy must be one of ${STRATEGY_NAMES.join(", ")}, got '${raw}'`);
}

/** A writable stream over the CLI's stderr (plain progress lines). */
function stderrStream(io: CliIO): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      io.stderr(String(chunk));
      done();
    },
  });
}

/**
 * `tessera tune FILE --target NAME --trials N --work-dir DIR …`: tune a function of a TVMScript
 * file with MetaSchedule (TVM's tune_tir), printing the trials and a progress bar on stderr and
 * TVM's summary table on stdout; the JSON database, the tuning history and the tuning curve go into
 * the work dir. `--dry-run` measures in the GPU simulator's cost model instead of on a GPU.
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  return runTune(args, io, defaultTuneDeps);
}

export async function runTune(args: readonly string[], io: CliIO, deps: TuneDeps): Promise<number> {
  const { positionals, values } = parseCommandArgs(tuneSpec, args);
  if (positionals.length !== 1 || values.target === undefined || values.trials === undefined || values["work-dir"] === undefined) {
    throw new CliError(`usage: tessera tune ${tuneSpec.usage} (see 'tessera tune --help')`);
  }
  const file = positionals[0]!;
  const target = targetOption(values.target);
  const trials = parsePositiveInt("--trials", values.trials)!;
  const trialsPerIter = parsePositiveInt("--trials-per-iter", values["trials-per-iter"]);
  const strategy = parseStrategy(values.strategy);
  const seed = values.seed === undefined ? undefined : parseSeed(values.seed);
  const workDir = values["work-dir"];
  const dryRun = values["dry-run"] === true;
  const searchWorkers = parseNonNegativeInt("--search-workers", values["search-workers"]);
  const overlapSearch = values.overlap === true;
  await checkWorkDir(workDir);
  const redis = values.redis;
  if (redis !== undefined) {
    try {
      parseRedisUrl(redis);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    if (target.kind === "c")
      throw new CliError(`--redis sends measurements to GPU workers; the CPU target ${target.name} is measured on this machine (leave out --redis)`);
  }
  const gpus = values.gpus === undefined ? undefined : gpuList(values.gpus);
  if (gpus !== undefined && target.kind === "c")
    throw new CliError(`--gpus starts GPU workers; the CPU target ${target.name} is measured on this machine (leave out --gpus)`);
  if (dryRun && target.kind === "c")
    throw new CliError(`--dry-run simulates a GPU; the CPU target ${target.name} is measured on this machine (leave out --dry-run)`);
  // With --redis or --gpus the workers measure: their GPUs count, not this process's.
  if (!dryRun && redis === undefined && gpus === undefined && target.kind === "cuda") {
    const gpu = deps.gpu();
    if (!gpu.available) {
      throw new CliError(`no GPU to measure on here (${gpu.reason ?? "CUDA is unavailable"}); use --dry-run to tune with the simulated runner`);
    }
  }
  const picked = pickFunction(await loadModule(file), file, values.func);
  const { name } = picked;
  const func = withFp32PrecisionOption(picked.func, values["fp32-precision"]);
  const space = await spaceOption(values.space ?? "auto", target, deps);

  const progress = createProgressReporter({ stream: deps.progressStream ?? stderrStream(io), estimated: dryRun });
  if (dryRun) io.stdout(DRY_RUN_HEADER);
  const log: Logger = (level, message) => {
    if (level !== "debug") progress.log(message);
  };
  let dispatcher: Dispatcher | undefined;
  let workers: TuneWorkers | undefined;
  let workersLost = false;
  if (gpus !== undefined) {
    const logDir = join(workDir, "workers");
    workers = await startTuneWorkers({
      gpus,
      redis,
      logDir,
      io,
      ...(deps.workerCommand === undefined ? {} : { command: deps.workerCommand }),
      onAllExited: () => {
        // Nothing is left to measure: the jobs still waiting fail, and so does the run.
        workersLost = true;
        void dispatcher?.close();
      },
    });
    io.stderr(`tessera tune: measuring on GPU${gpus.length === 1 ? "" : "s"} ${gpus.join(", ")}, one worker each (logs in ${logDir})\n`);
  }
  const queueUrl = workers?.redisUrl ?? redis;
  if (queueUrl !== undefined) {
    try {
      dispatcher = await Dispatcher.open(queueUrl);
    } catch (err) {
      await workers?.stop();
      if (err instanceof QueueConfigError) throw new CliError(err.message, 1);
      throw err;
    }
  }
  const runner: TuneOptions["runner"] =
    dispatcher === undefined
      ? dryRun
        ? "simulated"
        : "local"
      : new QueueRunner({
          dispatch: measureDispatch(dispatcher),
          runner: { kind: dryRun ? "simulated" : "local" },
          // The workers send back each candidate's outputs; a wrong kernel is a failed trial, as on this machine's GPU.
          ...(dryRun ? {} : { checker: firstResultChecker() }),
        });
  progress.start(trials);
  let result: Awaited<ReturnType<typeof tuneTIR>>;
  try {
    // A module of the one function, so that the task carries the function's name.
    result = await tuneTIR(irModule({ [name]: func }), target, {
      workDir,
      maxTrialsGlobal: trials,
      ...(trialsPerIter === undefined ? {} : { numTrialsPerIter: trialsPerIter }),
      space,
      strategy,
      runner,
      ...(seed === undefined ? {} : { seed }),
      ...(searchWorkers === undefined ? {} : { searchWorkers }),
      ...(overlapSearch ? { overlapSearch } : {}),
      ...deps.components,
      estimatedTimes: dryRun,
      logger: log,
      logSummary: false,
      runName: `${strategy}${seed === undefined ? "" : `, seed ${seed}`}`,
      onProgress: ({ trialsDone, trial, totalFlop }) => {
        const valid = trial.totalBestSecs < FAILED_RUN_SECS;
        progress.update({
          trialsDone,
          bestLatencyUs: valid ? trial.totalBestSecs * 1e6 : undefined,
          bestGflops: valid ? totalFlop / trial.totalBestSecs / 1e9 : undefined,
        });
      },
    });
  } catch (err) {
    if (err instanceof TesseraError) throw new CliError(`${file}: ${name}: ${err.message}`);
    throw err;
  } finally {
    progress.stop();
    await dispatcher?.close();
    await workers?.stop();
  }
  if (workersLost) throw new CliError(`every --gpus worker stopped before the run ended (logs in ${join(workDir, "workers")})`, 1);
  io.stdout(`${result.summary}`);
  const best = result.tasks[0]!;
  const files = [result.files.curveSvg, result.files.curvePng, result.files.history, logDirOf(workDir)].filter((f) => f !== undefined);
  io.stdout(`Work dir: ${workDir} (${describeDatabase(result.database)}; ${files.join(", ")})\n`);
  if (best.bestRecord === undefined) {
    io.stderr(`tessera: no candidate of ${name} ran successfully in ${best.trials} trials; nothing to build\n`);
    return 1;
  }
  const est = dryRun ? " (estimated)" : "";
  io.stdout(
    `Best ${name}${est}: ${(best.bestLatency * 1e6).toFixed(4)} us (${(best.flop / best.bestLatency / 1e9).toFixed(4)} GFLOPS); ` +
      `build it with: tessera build ${file} --target ${target.name} --database ${workDir}${values.func === undefined ? "" : ` --func ${name}`}\n`,
  );
  return 0;
}

/** The first line of a dry run: nothing below is a measurement. */
export const DRY_RUN_HEADER =
  "Dry run: the runner is simulated (no GPU); every time and GFLOPS figure below is an estimate of the GPU simulator's cost model, not a measurement.\n";

function describeDatabase(db: Database): string {
  return `${db.size()} tuning record${db.size() === 1 ? "" : "s"} in the database`;
}

async function checkWorkDir(dir: string): Promise<void> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) throw new CliError(`--work-dir ${dir}: not a directory`);
  } catch (err) {
    if (err instanceof CliError) throw err;
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new CliError(`--work-dir ${dir}: ${String((err as NodeJS.ErrnoException).code ?? err)}`);
    // A missing work dir is created by the tuning run.
  }
}

async function spaceOption(raw: string, target: TuneTarget, deps: TuneDeps): Promise<TuneOptions["space"]> {
  if (raw === "auto") return deps.autoSpace === undefined ? "auto" : deps.autoSpace(target);
  if (!/\.(ts|mts|js|mjs)$/.test(raw)) throw new CliError(`--space must be 'auto' or a .ts/.js file exporting a schedule function, got '${raw}'`);
  const fn = await loadScheduleFn(raw);
  return deps.scheduleFnSpace === undefined ? fn : deps.scheduleFnSpace(fn);
}

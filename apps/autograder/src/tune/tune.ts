/**
 * `pnpm grade --tune`, a thin client of @tessera/meta-schedule: samples the student's search
 * space (`autoTuningSchedule`) in the sandbox, hands the sampled traces to the package as a
 * TraceSpace (the target's default postprocessors and mutators), searches it with `tuneTasks`
 * (evolutionary search by default; candidates measured on the GPU in a child process, or
 * estimated by the simulated runner without one), then replays the best records as grading does,
 * checks their numerics and returns the first correct one printed as the part-2 hand-in file.
 * Writes only into the work dir (database, logs, tuning history and curve).
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CudaTarget, cudaTarget } from "@tessera/codegen";
import {
  EvolutionarySearch,
  type EvolutionarySearchConfig,
  FAILED_RUN_SECS,
  RecordedFirst,
  type Runner,
  type StrategyName,
  TraceSpace,
  defaultSpaceFor,
  makeStrategy,
  tuneTasks,
} from "@tessera/meta-schedule";
import type { PrimFunc } from "@tessera/ir";
import { type Decision, Schedule, type TraceJSON } from "@tessera/schedule";
import type { AssignmentBinding } from "../assignment.js";
import { localDeviceTarget } from "../gpu/index.js";
import type { GpuBackend, NumericsOutcome, NumericsRequest, TimingOutcome } from "../grade/numerics-types.js";
import { SIMULATED_TARGET, simulatorNumerics } from "../grade/simulator-numerics.js";
import { workloadStart } from "../grade/workload-start.js";
import type { Manifest, Numerics } from "../manifest/index.js";
import type { SandboxLimits } from "../sandbox/index.js";
import { type CheckedRecord, chooseRecord, MAX_NUMERICS_CHECKS } from "./choose.js";
import { designSpacesOf, sampledDecisions } from "./design-spaces.js";
import { TuneError } from "./errors.js";
import { type Sampling, sampleSearchSpace } from "./search-space.js";
import { workloadSizeLabel } from "../workload-size.js";

/**
 * A GPU backend without a CUDA device (a fake one, in tests) tunes for "cuda": the limits every
 * CUDA GPU shares (1024 threads and 48 KiB of static shared memory per block).
 */
const GPU_TARGET = "cuda";
/** Same inputs as `pnpm grade`'s default seed. */
const NUMERICS_SEED = 1;
/** Candidates per round of the search: the cost model learns between rounds. */
const TRIALS_PER_ROUND = 16;

export interface TuneOptions {
  readonly submissionDir: string;
  readonly binding: AssignmentBinding;
  readonly manifest: Manifest;
  /** The search's measurement budget; also the number of samples of autoTuningSchedule (seeds `seed`, …). */
  readonly trials: number;
  readonly seed: number;
  /** "evolutionary" (default) or "replay-trace" (random search, for comparison). */
  readonly strategy?: StrategyName;
  /** Where the tuning database, logs and curve go; a new temporary folder by default. */
  readonly workDir?: string;
  /** The GPU to measure and check on; without one the search ranks by estimates (see TuneResult.measured). */
  readonly gpu: GpuBackend | undefined;
  /** Why there is no GPU (shown to the student). */
  readonly noGpuReason?: string;
  /** The search's runner instead of the default (the package's LocalRunner on a GPU, else its SimulatedRunner): for tests. */
  readonly runner?: Runner;
  /**
   * Settings of the evolutionary search instead of its defaults (meta-schedule's
   * EvolutionarySearchConfig): for tests, whose searches check the tuner's steps, not the search's
   * reach. Ignored by the replay-trace strategy.
   */
  readonly searchConfig?: Partial<EvolutionarySearchConfig>;
  /** Replay worker threads of the search (meta-schedule's `searchWorkers`: default cores − 1, started once the search has replayed for 4 CPU s; 0: none). */
  readonly searchWorkers?: number;
  readonly limits?: SandboxLimits;
  /** Overrides of the manifest's numerics settings (tests use fewer rounds). */
  readonly numerics?: Partial<Pick<Numerics, "rounds">>;
  readonly onProgress?: (message: string) => void;
}

/** The chosen candidate, ready to hand in. */
export interface TunedTrace {
  /** Its rank among the search's records (1: the best). */
  readonly rank: number;
  readonly decisions: readonly Decision[];
  /** The whole hand-in file: `trace.show()` of the grader's replay. */
  readonly text: string;
  readonly json: TraceJSON;
  /** The search's run time in ms: measured on the GPU, or the simulator's estimate. */
  readonly searchMs: number;
  /** Its time with the grading settings (only with a GPU). */
  readonly timing?: TimingOutcome;
  readonly numerics: NumericsOutcome;
}

export interface TuneResult {
  readonly trials: number;
  readonly seed: number;
  /** The size n the candidates were sampled and tuned at. */
  readonly size: number;
  /** That size as messages write it (`2048×2048×2048`; see workload-size.ts). */
  readonly shape: string;
  /** The target the search tuned for, and its per-block limits that reject candidates. */
  readonly target: string;
  readonly limits: { readonly threadsPerBlock: number; readonly sharedMemoryBytes: number };
  readonly strategy: StrategyName;
  readonly gpu: { readonly name: string } | { readonly unavailable: string };
  /** True when the search's run times were measured on the GPU, false when they are the simulator's estimates. */
  readonly measured: boolean;
  /** Calls of autoTuningSchedule that completed, threw, or never reported (the run was stopped). */
  readonly sampling: Omit<Sampling, "samples"> & { readonly completed: number };
  /** Completed samples that replay on the grader's workload; those that do not, with one example. */
  readonly replayed: number;
  readonly notReplayed: number;
  readonly notReplayedExample?: { readonly seed: number; readonly detail: string };
  /** Distinct structures among the replayed samples: the design spaces searched. */
  readonly designSpaces: number;
  readonly search: {
    /** Candidates measured (or estimated), and how many of those failed to build or run. */
    readonly trials: number;
    readonly failed: number;
    /** The first failure, for the report. */
    readonly firstFailure?: string;
    /** Candidates the search rejected before measuring, by reason, most frequent first (with the mutation attempts that made no candidate). */
    readonly rejected: ReadonlyArray<readonly [reason: string, count: number]>;
    /** TVM's summary table. */
    readonly summary: string;
    readonly workDir: string;
    /** The tuning curve (SVG), when one was drawn. */
    readonly curve?: string;
  };
  /** The search's best records as the hand-in step checked them, best first. */
  readonly checked: readonly CheckedRecord[];
  readonly chosen: TunedTrace | undefined;
  readonly noChoiceReason?: string;
  /** The hand-in file the trace belongs in. */
  readonly traceFile: string;
  readonly elapsedMs: number;
}

/** Throws a TuneError when the search space cannot be sampled at all. */
export async function tuneSearchSpace(opts: TuneOptions): Promise<TuneResult> {
  return handInTuned(await searchTuneSpace(opts));
}

/** A finished search of `tuneSearchSpace`, before its hand-in step (`handInTuned`). */
export interface TuneSearch {
  readonly opts: TuneOptions;
  readonly started: number;
  readonly target: CudaTarget;
  readonly strategyName: StrategyName;
  readonly strategy: RecordedFirst;
  readonly settings: Numerics;
  readonly size: number;
  readonly workload: PrimFunc;
  readonly sampling: Sampling;
  readonly spaces: ReturnType<typeof designSpacesOf>;
  readonly tuned: Awaited<ReturnType<typeof tuneTasks>>;
  readonly workDir: string;
  readonly failed: number;
  readonly firstFailure: string | undefined;
}

/** The sampling and the search of `tuneSearchSpace`; throws a TuneError when the search space cannot be sampled at all. */
export async function searchTuneSpace(opts: TuneOptions): Promise<TuneSearch> {
  const started = performance.now();
  const progress = (message: string): void => opts.onProgress?.(message);
  const { manifest, binding, gpu } = opts;
  const settings: Numerics = { ...manifest.numerics, ...opts.numerics };
  const size = settings.sizes.full;
  const target: CudaTarget = gpu === undefined ? cudaTarget(SIMULATED_TARGET) : (localDeviceTarget() ?? cudaTarget(GPU_TARGET));
  const strategyName = opts.strategy ?? "evolutionary";
  const workload = binding.workload(size);

  progress(`sampling ${opts.trials} schedules from autoTuningSchedule in the sandbox (seeds ${opts.seed}–${opts.seed + opts.trials - 1})`);
  const sampling = await sampleSearchSpace({
    submissionDir: opts.submissionDir,
    start: workloadStart(binding, size),
    seed: opts.seed,
    trials: opts.trials,
    ...(opts.limits === undefined ? {} : { limits: opts.limits }),
  });
  const spaces = designSpacesOf(sampling.samples, new Schedule(workload));
  if (spaces.traces.length === 0) {
    const first = spaces.notReplayed[0];
    throw new TuneError(
      `none of the ${sampling.samples.length} traces autoTuningSchedule recorded replays on the grader's workload (seed ${first?.seed ?? "?"}: ${first?.detail ?? "?"})`,
    );
  }

  const defaults = defaultSpaceFor(target);
  const space = new TraceSpace(spaces.traces, { name: "autoTuningSchedule", postprocs: defaults.postprocs, mutators: defaults.mutators });
  const strategy = new RecordedFirst(strategyName === "evolutionary" ? new EvolutionarySearch(opts.searchConfig) : makeStrategy(strategyName));
  const workDir = opts.workDir ?? (await mkdtemp(join(tmpdir(), "tessera-tune-")));
  const runnerNote = gpu === undefined ? `estimated by the simulator for ${target.name}` : `measured on ${gpu.name}`;
  progress(`searching ${spaces.traces.length} design space(s) with ${strategyName} search: ${opts.trials} trials, ${runnerNote}; work dir ${workDir}`);
  let failed = 0;
  let firstFailure: string | undefined;
  const tuned = await tuneTasks([{ func: workload, name: manifest.workload }], target, {
    workDir,
    maxTrialsGlobal: opts.trials,
    numTrialsPerIter: Math.min(TRIALS_PER_ROUND, opts.trials),
    space,
    strategy,
    runner: opts.runner ?? (gpu === undefined ? "simulated" : "local"),
    ...(opts.searchWorkers === undefined ? {} : { searchWorkers: opts.searchWorkers }),
    seed: opts.seed,
    runName: `${strategyName}, seed ${opts.seed}`,
    curveTitle: `autoTuningSchedule at ${workloadSizeLabel(binding, size)} on ${target.name}${gpu === undefined ? " (estimated)" : ""}`,
    onProgress: ({ trial, trialsDone, maxTrialsGlobal }) => {
      if (!trial.ok) {
        failed++;
        firstFailure ??= trial.error;
      }
      const best = trial.bestSecs < FAILED_RUN_SECS ? `best ${(trial.bestSecs * 1000).toFixed(3)} ms` : "none valid yet";
      progress(`trial ${trialsDone}/${maxTrialsGlobal}: ${trial.ok ? `${(trial.latencySecs * 1000).toFixed(3)} ms` : "failed"} (${best})`);
    },
  });

  return { opts, started, target, strategyName, strategy, settings, size, workload, sampling, spaces, tuned, workDir, failed, firstFailure };
}

/**
 * The hand-in step of `tuneSearchSpace`: replays the search's best records as grading does, checks
 * their numerics (on `gpu`, the search's by default: tests hand one search to GPUs that answer
 * differently) and picks the first correct one.
 */
export async function handInTuned(search: TuneSearch, gpu: GpuBackend | undefined = search.opts.gpu): Promise<TuneResult> {
  const { opts, started, target, strategyName, strategy, settings, size, workload, sampling, spaces, tuned, workDir, failed, firstFailure } = search;
  if ((gpu === undefined) !== (opts.gpu === undefined)) throw new TuneError("the hand-in step needs a GPU exactly when the search had one");
  const progress = (message: string): void => opts.onProgress?.(message);
  const { manifest, binding } = opts;
  const handIn = tracedTask(manifest);
  const db = tuned.database;
  const records = db.hasWorkload(workload) ? db.getTopK(db.commitWorkload(workload), MAX_NUMERICS_CHECKS) : [];
  const checkNumerics = async (schedule: Schedule): Promise<NumericsOutcome> => {
    const req: NumericsRequest = { assignment: binding.name, schedule, settings, seed: NUMERICS_SEED };
    return gpu === undefined ? simulatorNumerics(req, binding) : gpu.numerics(req);
  };
  const choice = await chooseRecord({
    records,
    start: new Schedule(workload),
    gpu,
    assignment: binding.name,
    timing: manifest.timing,
    checkNumerics,
    onProgress: progress,
  });

  const firstNotReplayed = spaces.notReplayed[0];
  return {
    trials: opts.trials,
    seed: opts.seed,
    size,
    shape: workloadSizeLabel(binding, size),
    target: target.name,
    limits: { threadsPerBlock: target.maxThreadsPerBlock, sharedMemoryBytes: target.maxSharedMemoryPerBlock },
    strategy: strategyName,
    gpu: gpu === undefined ? { unavailable: opts.noGpuReason ?? "no GPU found" } : { name: gpu.name },
    measured: gpu !== undefined,
    sampling: { ...samplingCounts(sampling), completed: sampling.samples.length },
    replayed: spaces.replayed,
    notReplayed: spaces.notReplayed.length,
    ...(firstNotReplayed === undefined ? {} : { notReplayedExample: firstNotReplayed }),
    designSpaces: spaces.traces.length,
    search: {
      trials: tuned.history.length,
      failed,
      ...(firstFailure === undefined ? {} : { firstFailure }),
      rejected: strategy.rejectionTally(),
      summary: tuned.summary,
      workDir,
      ...(tuned.files.curveSvg === undefined ? {} : { curve: tuned.files.curveSvg }),
    },
    checked: choice.checked,
    chosen: choice.chosen === undefined ? undefined : tunedTrace(choice.chosen, handIn.function),
    ...(choice.noChoiceReason === undefined ? {} : { noChoiceReason: choice.noChoiceReason }),
    traceFile: handIn.file,
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** The chosen record's hand-in file: the trace of the grader's replay, printed. */
function tunedTrace(chosen: CheckedRecord, functionName: string): TunedTrace | undefined {
  // Never hand in a candidate whose numerics were not checked.
  if (chosen.schedule === undefined || chosen.numerics?.passed !== true) return undefined;
  const trace = chosen.schedule.trace;
  return {
    rank: chosen.rank,
    decisions: sampledDecisions(trace),
    text: trace.show({ functionName }),
    json: trace.toJSON(),
    searchMs: chosen.searchMs,
    numerics: chosen.numerics,
    ...(chosen.timing === undefined ? {} : { timing: chosen.timing }),
  };
}

/** What the report says about sampling: everything but the traces. */
function samplingCounts({ samples: _traces, ...counts }: Sampling): Omit<Sampling, "samples"> {
  return counts;
}

/** The part-2 task graded from a trace (trace_submission.ts's applyTrace), as the manifest names it. */
function tracedTask(manifest: Manifest): { file: string; function: string } {
  const task = manifest.tasks.find((t) => t.part === 2 && t.start === "workload");
  if (task === undefined)
    throw new Error(`the manifest of ${manifest.assignment} has no part-2 task that starts from the workload: there is nothing to tune for`);
  return { file: task.file, function: task.function };
}

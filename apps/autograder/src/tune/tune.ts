/**
 * `pnpm grade --tune`: samples the student's search space (`autoTuningSchedule`) in the sandbox,
 * replays and validates the candidates, times them on the GPU when there is one, and returns the
 * chosen candidate's trace printed as the part-2 hand-in file. Writes nothing.
 */
import { type Target, target as resolveTarget } from "@tessera/codegen";
import { type Decision, Schedule, type TraceJSON } from "@tessera/schedule";
import type { AssignmentBinding } from "../assignment.js";
import type { GpuBackend, NumericsOutcome, NumericsRequest, TimingOutcome } from "../grade/numerics-types.js";
import { SIMULATED_TARGET, simulatorNumerics } from "../grade/simulator-numerics.js";
import type { Manifest, Numerics } from "../manifest/index.js";
import type { SandboxLimits } from "../sandbox/index.js";
import { collectCandidates } from "./candidates.js";
import { type DiscardTally, tallyReasons } from "./discard-reasons.js";
import { type Sampling, sampleSearchSpace } from "./search-space.js";
import { type Assessment, selectCandidate } from "./select.js";

/**
 * Without a device, "cuda" has the limits every CUDA GPU shares (1024 threads and 48 KiB of static
 * shared memory per block); timing then builds for the device itself, and a candidate that still
 * does not fit shows up as a failed timing.
 */
const GPU_TARGET = "cuda";
/** Same inputs as `pnpm grade`'s default seed. */
const NUMERICS_SEED = 1;

export interface TuneOptions {
  readonly submissionDir: string;
  readonly binding: AssignmentBinding;
  readonly manifest: Manifest;
  /** Number of samples, with seeds `seed`, …, `seed + trials - 1`. */
  readonly trials: number;
  readonly seed: number;
  /** The GPU to time on; without one nothing is timed (see TuneResult.chosen). */
  readonly gpu: GpuBackend | undefined;
  /** Why there is no GPU (shown to the student). */
  readonly noGpuReason?: string;
  readonly limits?: SandboxLimits;
  /** Overrides of the manifest's numerics settings (tests use fewer rounds). */
  readonly numerics?: Partial<Pick<Numerics, "rounds">>;
  readonly onProgress?: (message: string) => void;
}

/** The chosen candidate, ready to hand in. */
export interface TunedTrace {
  readonly seed: number;
  readonly decisions: readonly Decision[];
  /** The whole hand-in file: `trace.show()` of the grader's replay. */
  readonly text: string;
  readonly json: TraceJSON;
  /** Its time with the grading settings (only with a GPU). */
  readonly timing?: TimingOutcome;
  readonly numerics: NumericsOutcome;
}

export interface TuneResult {
  readonly trials: number;
  readonly seed: number;
  /** M = N = K the candidates were sampled and timed at. */
  readonly size: number;
  /** The target whose limits the candidates were checked against. */
  readonly target: string;
  /** The same for the student: "nvidia/tesla-t4", or "a CUDA GPU" (see GPU_TARGET). */
  readonly targetLabel: string;
  readonly gpu: { readonly name: string } | { readonly unavailable: string };
  /** Calls of autoTuningSchedule that completed, threw, or never reported (the run was stopped). */
  readonly sampling: Omit<Sampling, "samples"> & { readonly completed: number };
  /** Samples equal to an earlier sample. */
  readonly duplicates: number;
  /** Distinct samples that cannot run, grouped by reason. */
  readonly discarded: readonly DiscardTally[];
  /** The valid candidates, best first (sample order without a GPU). */
  readonly ranked: readonly Assessment[];
  readonly chosen: TunedTrace | undefined;
  readonly noChoiceReason?: string;
  /** The hand-in file the trace belongs in. */
  readonly traceFile: string;
  readonly elapsedMs: number;
}

/** Throws a TuneError when the search space cannot be sampled at all. */
export async function tuneSearchSpace(opts: TuneOptions): Promise<TuneResult> {
  const started = performance.now();
  const progress = (message: string): void => opts.onProgress?.(message);
  const { manifest, binding, gpu } = opts;
  const handIn = tracedTask(manifest);
  const settings: Numerics = { ...manifest.numerics, ...opts.numerics };
  const size = settings.sizes.full;
  const target: Target = resolveTarget(gpu === undefined ? SIMULATED_TARGET : GPU_TARGET);

  progress(`sampling ${opts.trials} schedules from autoTuningSchedule in the sandbox (seeds ${opts.seed}–${opts.seed + opts.trials - 1})`);
  const sampling = await sampleSearchSpace({
    submissionDir: opts.submissionDir,
    workload: manifest.workload,
    size,
    seed: opts.seed,
    trials: opts.trials,
    ...(opts.limits === undefined ? {} : { limits: opts.limits }),
  });

  progress(`replaying ${sampling.samples.length} samples and checking them against the limits of ${target.name}`);
  const pool = collectCandidates(sampling.samples, new Schedule(binding.workload(size)), target);

  const checkNumerics = async (schedule: Schedule): Promise<NumericsOutcome> => {
    const req: NumericsRequest = { schedule, settings, seed: NUMERICS_SEED };
    return gpu === undefined ? simulatorNumerics(req, binding) : gpu.numerics(req);
  };
  const selection = await selectCandidate({ candidates: pool.valid, gpu, timing: manifest.timing, checkNumerics, onProgress: progress });

  return {
    trials: opts.trials,
    seed: opts.seed,
    size,
    target: target.name,
    targetLabel: gpu === undefined ? target.name : "a CUDA GPU",
    gpu: gpu === undefined ? { unavailable: opts.noGpuReason ?? "no GPU found" } : { name: gpu.name },
    sampling: { ...samplingCounts(sampling), completed: sampling.samples.length },
    duplicates: pool.duplicates,
    discarded: tallyReasons(pool.discarded),
    ranked: selection.ranked,
    chosen: selection.chosen === undefined ? undefined : tunedTrace(selection.chosen, handIn.function),
    ...(selection.noChoiceReason === undefined ? {} : { noChoiceReason: selection.noChoiceReason }),
    traceFile: handIn.file,
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** The chosen candidate's hand-in file: the trace of the grader's replay, printed. */
function tunedTrace(chosen: Assessment, functionName: string): TunedTrace | undefined {
  // Selection checks a candidate's numerics before choosing it; never hand in an unchecked one.
  if (chosen.numerics === undefined) return undefined;
  const trace = chosen.candidate.schedule.trace;
  return {
    seed: chosen.candidate.seed,
    decisions: chosen.candidate.decisions,
    text: trace.show({ functionName }),
    json: trace.toJSON(),
    numerics: chosen.numerics,
    ...(chosen.final === undefined ? {} : { timing: chosen.final }),
  };
}

/** What the report says about sampling: everything but the traces. */
function samplingCounts({ samples: _traces, ...counts }: Sampling): Omit<Sampling, "samples"> {
  return counts;
}

/** The part-2 task graded from a trace (trace_submission.ts's applyTrace), as the manifest names it. */
function tracedTask(manifest: Manifest): { file: string; function: string } {
  const task = manifest.tasks.find((t) => t.part === 2 && t.start === "workload");
  if (task === undefined) throw new Error(`the manifest of ${manifest.assignment} has no part-2 task that starts from the workload: there is nothing to tune for`);
  return { file: task.file, function: task.function };
}

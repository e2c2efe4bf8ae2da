/**
 * Step 1 of tuning: sample the student's search space. `autoTuningSchedule` runs in the sandbox
 * once per seed (one sandboxed process for all seeds); each call's trace records the decisions its
 * seed sampled. Nothing from the child is used but those traces, which the grader replays itself.
 */
import { describeExit, describeJobError, describeLoadFailure } from "../grade/job-failure.js";
import { DEFAULT_LIMITS, type Job, type JobStart, type SandboxLimits, prepareSubmissionFile } from "../sandbox/index.js";
import { TuneError } from "./errors.js";

export const SEARCH_SPACE_FILE = "auto_tuning.ts";
export const SEARCH_SPACE_FUNCTION = "autoTuningSchedule";

/**
 * Jobs travel to the child as one command-line argument, which Linux caps at 128 KiB; at about
 * 130 bytes per job this keeps well under it.
 */
export const MAX_TRIALS = 512;

export interface SamplingRequest {
  readonly submissionDir: string;
  /** Where each call starts: the workload at the size to sample at (the graded, full size). */
  readonly start: JobStart;
  /** Seeds `seed`, `seed + 1`, …, `seed + trials - 1`. */
  readonly seed: number;
  readonly trials: number;
  readonly limits?: SandboxLimits;
}

/** One call that completed: its seed and the (untrusted) trace it recorded. */
export interface Sample {
  readonly seed: number;
  readonly trace: unknown;
}

export interface Sampling {
  readonly samples: readonly Sample[];
  /** Calls that threw, and the first one's seed and explanation. */
  readonly threw: number;
  readonly firstError?: { readonly seed: number; readonly message: string };
  /** Calls that never reported because the run was stopped, and why. */
  readonly unfinished: number;
  readonly unfinishedReason?: string;
}

/** Throws a TuneError when not a single call completed (the message says why). */
export async function sampleSearchSpace(req: SamplingRequest): Promise<Sampling> {
  if (!Number.isInteger(req.trials) || req.trials < 1 || req.trials > MAX_TRIALS) {
    throw new RangeError(`sampleSearchSpace: trials must be an integer in 1..${MAX_TRIALS}, got ${req.trials}`);
  }
  const limits = req.limits ?? DEFAULT_LIMITS;
  const jobs: Job[] = Array.from({ length: req.trials }, (_, k) => ({
    id: `seed-${req.seed + k}`,
    call: SEARCH_SPACE_FUNCTION,
    start: req.start,
    args: [],
    seed: req.seed + k,
  }));
  const file = await prepareSubmissionFile(req.submissionDir, SEARCH_SPACE_FILE);
  try {
    const run = await file.run(jobs, limits);
    if (!run.load.ok) throw new TuneError(describeLoadFailure(SEARCH_SPACE_FILE, run.load, run, limits));
    const samples: Sample[] = [];
    let threw = 0;
    let firstError: { seed: number; message: string } | undefined;
    let unfinished = 0;
    for (const job of jobs) {
      const result = run.results.get(job.id);
      if (result === undefined) unfinished++;
      else if (!result.ok) {
        threw++;
        firstError ??= { seed: job.seed ?? req.seed, message: describeJobError(SEARCH_SPACE_FUNCTION, result.error) };
      } else samples.push({ seed: job.seed ?? req.seed, trace: result.trace });
    }
    const unfinishedReason = unfinished > 0 ? describeExit(run, limits) : undefined;
    if (samples.length === 0) {
      // The first error explains more than "stopped" when both happened (it usually came first).
      throw new TuneError(firstError?.message ?? `${SEARCH_SPACE_FUNCTION} did not finish: ${unfinishedReason ?? "no call reported back"}`);
    }
    return {
      samples,
      threw,
      unfinished,
      ...(firstError === undefined ? {} : { firstError }),
      ...(unfinishedReason === undefined ? {} : { unfinishedReason }),
    };
  } finally {
    await file.dispose();
  }
}

/**
 * How a batch grades its submissions, N at a time (`--jobs N`):
 *   - N = 1: in this thread, one after another (the progress bar shows each grading step);
 *   - without a GPU: in N worker threads. The grader's own work is CPU-bound JavaScript
 *     (replays, checks, and the simulator's numerics, which take most of a submission's time),
 *     so submissions in one thread would take turns on one core;
 *   - with a GPU: N at once in this thread, the GPU's runs taken one at a time (serializedGpu).
 *     Numerics run on the device there, so what overlaps is mostly the sandboxed child processes
 *     of the student code, and the device stays one context used by one kernel at a time.
 */
import { availableParallelism } from "node:os";
import { type EntryPoint, TaskPool, resolveEntryPoint } from "@tessera/meta-schedule/isolation";
import { DEFAULT_LIMITS } from "../sandbox/index.js";
import type { Submission } from "./discover.js";
import { type BatchGradeSettings, type SubmissionOutcome, type WorkerGradeTask, errorOutcome, gradeOne } from "./grade-one.js";
import { serializedGpu } from "./serialized-gpu.js";
import { SampledRoundsHelper } from "../grade/rounds/rounds-helper.js";

export interface SubmissionGrader {
  /** Submissions it grades at once. */
  readonly concurrency: number;
  /** Where it grades: "in-process", "worker threads", or "queue" (jobs for worker processes, see queue/queue-grader.ts). */
  readonly mode: "in-process" | "worker threads" | "queue";
  /** Never rejects: a failure of the grader becomes the submission's error outcome. */
  grade(sub: Submission, onStep?: (message: string) => void): Promise<SubmissionOutcome>;
  dispose(): Promise<void>;
}

/** The default of `--jobs`: the cores, at most 8 (each worker holds a whole grader in memory). */
export function defaultJobs(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

export function createSubmissionGrader(settings: BatchGradeSettings, jobs: number, entry?: EntryPoint): SubmissionGrader {
  if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`jobs must be a positive integer, got ${jobs}`);
  if (settings.gpu !== undefined) {
    const shared = jobs > 1 ? { ...settings, gpu: serializedGpu(settings.gpu) } : settings;
    return { concurrency: jobs, mode: "in-process", grade: (sub, onStep) => gradeOne(sub, shared, onStep), dispose: async () => {} };
  }
  if (jobs === 1) {
    // One submission at a time: the simulator's checks take the second core (one thread for the batch).
    const numericsHelper = new SampledRoundsHelper();
    const withHelper = { ...settings, numericsHelper };
    return { concurrency: 1, mode: "in-process", grade: (sub, onStep) => gradeOne(sub, withHelper, onStep), dispose: () => numericsHelper.dispose() };
  }
  return threadGrader(settings, jobs, entry ?? gradeWorkerEntry());
}

/** The grading thread's code, beside this module (source, dist) or the bundle (see entry-point.ts). */
export function gradeWorkerEntry(): EntryPoint {
  return resolveEntryPoint(import.meta.url, { module: "grade-worker", bundle: "grade-batch-worker.mjs" });
}

function threadGrader(settings: BatchGradeSettings, jobs: number, entry: EntryPoint): SubmissionGrader {
  const pool = new TaskPool<WorkerGradeTask, SubmissionOutcome>({ kind: "thread", entry, size: jobs, restartAfterFailure: true });
  // Field by field: `settings` may be a larger object (the batch's options, with its progress callbacks).
  const plain: WorkerGradeTask["settings"] = {
    assignment: settings.binding.name,
    manifest: settings.manifest,
    ...(settings.noGpuReason === undefined ? {} : { noGpuReason: settings.noGpuReason }),
    ...(settings.limits === undefined ? {} : { limits: settings.limits }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
    ...(settings.numerics === undefined ? {} : { numerics: settings.numerics }),
  };
  // Each sandboxed run has its own limit; this one only ends a grader stuck in its own code.
  const limitMs = 20 * (settings.limits ?? DEFAULT_LIMITS).timeoutMs;
  return {
    concurrency: jobs,
    mode: "worker threads",
    grade: async (submission) => {
      const started = performance.now();
      const outcome = await pool.run({ submission, settings: plain }, limitMs);
      if (outcome.ok) return outcome.value;
      return errorOutcome(submission.name, `grading failed: ${outcome.error}`, (performance.now() - started) / 1000);
    },
    dispose: () => pool.dispose(),
  };
}

/**
 * The worker's side of "grade" jobs: the submission is written to a private folder and graded as
 * the local batch grades it (grade-one.ts), so a submission scores the same through the queue as
 * without it. Without a GPU (or with `noGpu`) it is graded in a worker thread (simulator
 * numerics, no timing): the worker's own thread stays free to renew the job's lock (its
 * heartbeat). With a GPU, gradings of one worker take the GPU's runs one at a time (serializedGpu).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EntryPoint, TaskPool } from "@tessera/meta-schedule/isolation";
import { type JobHandler, JobRejectedError, handlerFor } from "@tessera/queue";
import { type AssignmentBinding, assignmentBinding } from "../assignment.js";
import { type BatchGradeSettings, type SubmissionOutcome, type WorkerGradeTask, errorOutcome, gradeOne } from "../batch/grade-one.js";
import { serializedGpu } from "../batch/serialized-gpu.js";
import { gradeWorkerEntry } from "../batch/submission-grader.js";
import type { GpuBackend } from "../grade/numerics-types.js";
import { type Manifest, loadManifest } from "../manifest/index.js";
import { DEFAULT_LIMITS } from "../sandbox/index.js";
import { GRADE_JOB, type GradeJobPayload, manifestDigest, materializeSubmission } from "./grade-job.js";

export interface GradeHandlerOptions {
  /** Gradings at once (the worker's concurrency): the size of the thread pool. */
  readonly concurrency: number;
  /** This worker's GPU, or why it has none. */
  readonly gpu: { readonly backend: GpuBackend } | { readonly reason: string };
  /** The grading thread's code (default beside grade-one). */
  readonly entry?: EntryPoint;
}

export interface GradeHandler {
  readonly handler: JobHandler<unknown, unknown>;
  dispose(): Promise<void>;
}

export function createGradeHandler(opts: GradeHandlerOptions): GradeHandler {
  let pool: TaskPool<WorkerGradeTask, SubmissionOutcome> | undefined;
  const threads = (): TaskPool<WorkerGradeTask, SubmissionOutcome> =>
    (pool ??= new TaskPool({ kind: "thread", entry: opts.entry ?? gradeWorkerEntry(), size: opts.concurrency, restartAfterFailure: true }));
  const gpu = "backend" in opts.gpu ? serializedGpu(opts.gpu.backend) : undefined;
  const noGpuReason = "reason" in opts.gpu ? opts.gpu.reason : undefined;
  const assignments = new Map<string, { binding: AssignmentBinding; manifest: Manifest; digest: string }>();

  const assignment = (name: string): { binding: AssignmentBinding; manifest: Manifest; digest: string } => {
    let known = assignments.get(name);
    if (known === undefined) {
      let binding: AssignmentBinding;
      try {
        binding = assignmentBinding(name);
      } catch (err) {
        throw new JobRejectedError(`this worker cannot grade it: ${(err as Error).message}`);
      }
      const manifest = loadManifest(binding.manifestPath);
      known = { binding, manifest, digest: manifestDigest(manifest) };
      assignments.set(name, known);
    }
    return known;
  };

  const grade = async (payload: GradeJobPayload, onStep: (message: string) => void): Promise<SubmissionOutcome> => {
    const { binding, manifest, digest } = assignment(payload.settings.assignment);
    if (digest !== payload.settings.manifestDigest) {
      throw new JobRejectedError(
        `the manifest of ${binding.name} on this worker (${binding.manifestPath}, sha256 ${digest.slice(0, 12)}…) is not the dispatcher's (sha256 ${payload.settings.manifestDigest.slice(0, 12)}…): run workers of the same version`,
      );
    }
    const { assignment: _, manifestDigest: __, noGpu, ...rest } = payload.settings;
    const scratch = await mkdtemp(join(tmpdir(), "tessera-queue-grade-"));
    try {
      const submission = await materializeSubmission(payload.submission, scratch);
      if (gpu !== undefined && !noGpu) return await gradeOne(submission, { ...rest, binding, manifest, gpu }, onStep);
      const reason = noGpu ? "--no-gpu was given" : (noGpuReason ?? "no GPU");
      const settings: WorkerGradeTask["settings"] = { ...rest, assignment: binding.name, manifest, noGpuReason: reason };
      const started = performance.now();
      // Each sandboxed run has its own limit; this one only ends a grader stuck in its own code.
      const outcome = await threads().run({ submission, settings }, 20 * (rest.limits ?? DEFAULT_LIMITS).timeoutMs);
      if (outcome.ok) return outcome.value;
      return errorOutcome(submission.name, `grading failed: ${outcome.error}`, (performance.now() - started) / 1000);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  };

  return {
    handler: handlerFor(GRADE_JOB, (payload, context) => grade(payload, (message) => void context.progress(message).catch(() => undefined))),
    dispose: async () => {
      await pool?.dispose();
      gpu?.dispose();
    },
  };
}

export type { BatchGradeSettings };

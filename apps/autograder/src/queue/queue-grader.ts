/**
 * Grades a batch through the job queue (`tessera-grade batch DIR --redis URL`): each submission
 * becomes one "grade" job, named after this run and the submission, for whichever worker takes
 * it (see `tessera-grade worker`). The batch around it (resume, summary, reports) is unchanged: the
 * outcome comes back and is stored by runBatch as a local one is.
 *
 * A job that failed for good (dead-lettered), or whose result does not fit the job (another
 * submission's name, scores above the manifest's maximum), is that submission's error outcome; losing the queue
 * itself (Redis gone) fails the batch, so that a later run grades what is left rather than
 * recording errors for submissions nobody graded.
 */
import { randomUUID } from "node:crypto";
import { Dispatcher, JobFailedError, type QueueSettings } from "@tessera/queue";
import type { Submission } from "../batch/discover.js";
import { type BatchGradeSettings, errorOutcome } from "../batch/grade-one.js";
import type { SubmissionGrader } from "../batch/submission-grader.js";
import { GRADE_JOB, gradeJobPayload } from "./grade-job.js";
import { gradeResultProblem } from "./grade-result-check.js";

/** Jobs of one batch in the queue at once: enough for every worker of a lab, few enough for Redis's memory. */
export const QUEUE_IN_FLIGHT = 256;

export async function queueGrader(
  redisUrl: string,
  settings: BatchGradeSettings & { readonly noGpu: boolean },
  queue: Partial<QueueSettings> = {},
): Promise<SubmissionGrader> {
  const dispatcher = await Dispatcher.open(redisUrl, queue);
  const run = randomUUID().slice(0, 8);
  return {
    concurrency: QUEUE_IN_FLIGHT,
    mode: "queue",
    grade: async (sub: Submission, onStep?: (message: string) => void) => {
      const started = performance.now();
      let payload;
      try {
        payload = await gradeJobPayload(sub, settings);
      } catch (err) {
        return errorOutcome(sub.name, `the submission could not be read: ${(err as Error).message}`, 0);
      }
      try {
        const outcome = await dispatcher.dispatch(GRADE_JOB, payload, { key: `${run}/${sub.name}`, ...(onStep === undefined ? {} : { onProgress: onStep }) });
        const problem = gradeResultProblem(outcome, sub.name, settings.manifest);
        if (problem === undefined) return outcome;
        return errorOutcome(
          sub.name,
          `grading failed: the worker's result of job ${run}/${sub.name} was refused: ${problem}`,
          (performance.now() - started) / 1000,
        );
      } catch (err) {
        if (err instanceof JobFailedError) return errorOutcome(sub.name, `grading failed: ${err.reason}`, (performance.now() - started) / 1000);
        throw err;
      }
    },
    dispose: () => dispatcher.close(),
  };
}

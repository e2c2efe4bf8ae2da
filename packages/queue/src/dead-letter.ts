/**
 * The dead-letter queue: a job that failed for good (its attempts exhausted, or rejected as
 * malformed before any work) is copied here with the reason, under its own id (so a job is
 * dead-lettered once even if two workers report it). No worker takes from this queue.
 */
import type { Queue } from "bullmq";
import { z } from "zod";

export const DeadLetterSchema = z.object({
  jobId: z.string(),
  kind: z.string(),
  reason: z.string(),
  attemptsMade: z.number().int().nonnegative(),
  failedAt: z.string(),
  worker: z.string(),
  payload: z.unknown(),
});

export type DeadLetter = z.infer<typeof DeadLetterSchema>;

export async function addDeadLetter(dlq: Queue, letter: DeadLetter): Promise<void> {
  await dlq.add(letter.kind, letter, { jobId: letter.jobId, removeOnComplete: false, removeOnFail: false });
}

export async function readDeadLetters(dlq: Queue): Promise<DeadLetter[]> {
  const jobs = await dlq.getJobs(["waiting", "prioritized", "delayed"], 0, -1, true);
  return jobs.flatMap((job) => {
    const parsed = DeadLetterSchema.safeParse(job.data);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Takes the dead letter of `jobId` out of the dead-letter queue; false when there is none. */
export async function removeDeadLetter(dlq: Queue, jobId: string): Promise<boolean> {
  const job = await dlq.getJob(jobId);
  if (job === undefined) return false;
  await job.remove();
  return true;
}

/**
 * The worker loop: takes jobs of the kinds it has handlers for, `concurrency` at a time, checks
 * each payload against its kind's schema, runs the handler and hands the result back through the
 * queue. What goes wrong:
 *   - an unknown kind or a malformed payload: the job fails at once (no retry) and goes to the
 *     dead-letter queue with the reason; the worker goes on;
 *   - a handler that throws: the job is retried (settings.attempts, exponential backoff) and
 *     dead-lettered after the last attempt;
 *   - the worker dies: its lock lapses and the stalled-job check of another worker puts the job
 *     back in the queue (see settings.ts); a job lost too often fails and is dead-lettered.
 * One line per job goes to `log`. `close()` lets the jobs in hand finish (SIGTERM);
 * `close(true)` drops them, for the stalled-job check to hand to another worker.
 */
import { hostname } from "node:os";
import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { refuseOpenRedis } from "./auth-policy.js";
import { checkReachable, openRedis } from "./connection.js";
import { addDeadLetter } from "./dead-letter.js";
import { JobRejectedError } from "./errors.js";
import { type JobHandler, describeZodError } from "./job-kind.js";
import { startLockKeeper } from "./lock-keeper.js";
import { DEAD_LETTER_QUEUE, JOBS_QUEUE } from "./names.js";
import { parseRedisUrl } from "./redis-url.js";
import { type QueueSettings, queueSettings } from "./settings.js";
import { queueKeyFromEnv, seal, unseal } from "./signing.js";
import { journal, testHold } from "./test-hold.js";

export interface WorkerOptions {
  readonly redisUrl: string;
  readonly handlers: readonly JobHandler<unknown, unknown>[];
  /** Jobs handled at once (default 1). */
  readonly concurrency?: number;
  /** Shown in logs and stored on the jobs it takes (default host:pid). */
  readonly name?: string;
  readonly settings?: Partial<QueueSettings>;
  readonly log?: (line: string) => void;
  /** Work for a Redis that answers without credentials off loopback (see auth-policy.ts). */
  readonly insecure?: boolean;
  /** Checks payloads and signs results (signing.ts); default TESSERA_QUEUE_KEY(_FILE). */
  readonly key?: string;
  /** Which hosts count as loopback (tests). */
  readonly isLoopback?: (host: string) => boolean;
}

export interface RunningWorker {
  readonly name: string;
  /** Resolves when the worker has stopped. */
  readonly closed: Promise<void>;
  close(force?: boolean): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const address = parseRedisUrl(opts.redisUrl);
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`worker concurrency must be a positive integer, got ${concurrency}`);
  const handlers = new Map<string, JobHandler<unknown, unknown>>();
  for (const h of opts.handlers) {
    if (handlers.has(h.kind.name)) throw new RangeError(`two handlers for job kind "${h.kind.name}"`);
    handlers.set(h.kind.name, h);
  }
  await checkReachable(address);
  await refuseOpenRedis(address, {
    ...(opts.insecure === undefined ? {} : { insecure: opts.insecure }),
    ...(opts.isLoopback === undefined ? {} : { isLoopback: opts.isLoopback }),
  });
  const settings = queueSettings(opts.settings);
  const key = "key" in opts ? opts.key : queueKeyFromEnv();
  const name = opts.name ?? `${hostname()}:${process.pid}`;
  const log = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const connection = openRedis(address);
  const control = openRedis(address);
  const dlq = new Queue(DEAD_LETTER_QUEUE, { connection: control, prefix: settings.prefix });
  const known = [...handlers.keys()].join(", ");
  // Locks renewed from a thread of their own: a handler that holds this thread keeps its job.
  const keeper = startLockKeeper({ address, queueKey: `${settings.prefix}:${JOBS_QUEUE}`, lockDurationMs: settings.lockDurationMs });

  const handle = async (job: Job, jobId: string): Promise<unknown> => {
    const handler = handlers.get(job.name);
    if (handler === undefined) throw new UnrecoverableError(`unknown job kind "${job.name}" (this worker handles: ${known})`);
    const opened = unseal(key, "payload", job.name, jobId, job.data);
    if (!opened.ok) throw new UnrecoverableError(`the ${job.name} payload ${opened.reason}`);
    const parsed = handler.kind.payload.safeParse(opened.value);
    if (!parsed.success) throw new UnrecoverableError(`malformed ${job.name} payload: ${describeZodError(parsed.error)}`);
    await testHold(jobId, control, settings.prefix);
    journal(`start ${jobId} ${process.pid}`);
    let result: unknown;
    try {
      result = await handler.handle(parsed.data, {
        jobId,
        attempt: job.attemptsMade + 1,
        progress: async (message) => {
          await job.updateProgress(message);
        },
      });
    } catch (err) {
      if (err instanceof JobRejectedError || (err instanceof Error && err.name === "JobRejectedError")) throw new UnrecoverableError(err.message);
      throw err;
    }
    const checked = handler.kind.result.safeParse(result);
    if (!checked.success) throw new Error(`the ${job.name} handler returned a malformed result: ${describeZodError(checked.error)}`);
    journal(`done ${jobId} ${process.pid}`);
    return key === undefined ? checked.data : seal(key, "result", job.name, jobId, checked.data);
  };

  const process_ = async (job: Job, token?: string): Promise<unknown> => {
    const jobId = job.id ?? "?";
    if (token !== undefined) keeper.hold(jobId, token);
    const attempt = job.attemptsMade + 1;
    const attempts = job.opts.attempts ?? 1;
    const started = performance.now();
    log(`[${name}] ${jobId}: started (attempt ${attempt} of ${attempts})`);
    try {
      const result = await handle(job, jobId);
      log(`[${name}] ${jobId}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return result;
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const final = error instanceof UnrecoverableError || attempt >= attempts;
      log(`[${name}] ${jobId}: failed (attempt ${attempt} of ${attempts}${final ? "; dead-lettered" : "; to be retried"}): ${error.message}`);
      // Before the job is marked failed: whoever sees it failed finds its dead letter.
      if (final) await recordDeadLetter(dlq, job, error.message, attempt, name, log);
      throw error;
    } finally {
      keeper.release(jobId);
    }
  };

  const worker = new Worker(JOBS_QUEUE, process_, {
    connection,
    prefix: settings.prefix,
    name,
    concurrency,
    lockDuration: settings.lockDurationMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: settings.maxStalledCount,
    autorun: false,
  });
  worker.on("error", (err) => log(`[${name}] queue error: ${err.message}`));
  // A job lost by its workers more than maxStalledCount times is failed by the stalled-job check,
  // not by a handler: dead-lettered here (by its id, so once, whichever worker reports it).
  worker.on("failed", (job: Job | undefined, err: Error) => {
    if (job === undefined || !/stalled/i.test(err.message)) return;
    log(`[${name}] ${job.id}: failed: ${err.message}; dead-lettered`);
    void recordDeadLetter(dlq, job, err.message, job.attemptsStarted, name, log);
  });

  const closed = worker.run().then(async () => {
    await keeper.close();
    await dlq.close();
    connection.disconnect();
    control.disconnect();
  });
  await worker.waitUntilReady();
  return {
    name,
    closed,
    close: async (force = false) => {
      // A forced close drops the jobs in hand: their locks must lapse (the lock keeper stops renewing
      // them now, not once their handlers return), so that the stalled-job check hands them on.
      if (force) await keeper.close();
      await worker.close(force);
      await closed;
    },
  };
}

async function recordDeadLetter(dlq: Queue, job: Job, reason: string, attempts: number, worker: string, log: (line: string) => void): Promise<void> {
  try {
    await addDeadLetter(dlq, {
      jobId: job.id ?? "?",
      kind: job.name,
      reason,
      attemptsMade: attempts,
      failedAt: new Date().toISOString(),
      worker,
      payload: job.data,
    });
  } catch (err) {
    log(`[${worker}] ${job.id}: could not be put in the dead-letter queue: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export type { Redis };

/**
 * The client side: puts jobs in the queue and waits for their results. `dispatch` resolves with
 * the job's result (checked against its kind's schema) once a worker completed it, and rejects
 * with a JobFailedError once the job failed for good (every attempt failed, or a worker rejected
 * it as malformed); a failed attempt that will be retried, or a job put back after its worker was
 * lost, only delays it.
 */
import { randomUUID } from "node:crypto";
import { type Job, type JobsOptions, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { checkReachable, openRedis } from "./connection.js";
import { type DeadLetter, readDeadLetters, removeDeadLetter } from "./dead-letter.js";
import { JobFailedError, QueueConfigError } from "./errors.js";
import { jobIdFor } from "./job-id.js";
import { type JobKind, describeZodError } from "./job-kind.js";
import { DEAD_LETTER_QUEUE, JOBS_QUEUE } from "./names.js";
import { parseRedisUrl } from "./redis-url.js";
import { type QueueSettings, queueSettings } from "./settings.js";
import { queueKeyFromEnv, seal, unseal } from "./signing.js";

export interface DispatchOptions {
  /** Names the job (see job-id.ts); default a fresh id. */
  readonly key?: string;
  /** Progress messages of the worker that holds the job. */
  readonly onProgress?: (message: string) => void;
}

interface Waiter {
  readonly kind: JobKind<unknown, unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly onProgress?: (message: string) => void;
}

export class Dispatcher {
  readonly settings: QueueSettings;
  readonly #queue: Queue;
  readonly #events: QueueEvents;
  readonly #connections: Redis[];
  readonly #waiters = new Map<string, Waiter>();
  readonly #key: string | undefined;

  private constructor(settings: QueueSettings, queue: Queue, events: QueueEvents, connections: Redis[], key: string | undefined) {
    this.settings = settings;
    this.#key = key;
    this.#queue = queue;
    this.#events = events;
    this.#connections = connections;
    events.on("completed", ({ jobId }) => void this.#settle(jobId));
    events.on("failed", ({ jobId }) => void this.#settle(jobId));
    events.on("progress", ({ jobId, data }) => {
      if (typeof data === "string") this.#waiters.get(jobId)?.onProgress?.(data);
    });
  }

  /**
   * Connects to the Redis at `url` (a QueueConfigError when the URL is malformed or nobody
   * answers). `key` signs payloads and checks results (signing.ts); default TESSERA_QUEUE_KEY(_FILE).
   */
  static async open(url: string, overrides: Partial<QueueSettings> = {}, key: string | undefined = queueKeyFromEnv()): Promise<Dispatcher> {
    const address = parseRedisUrl(url);
    await checkReachable(address);
    const settings = queueSettings(overrides);
    const queueConnection = openRedis(address);
    const eventsConnection = openRedis(address);
    const queue = new Queue(JOBS_QUEUE, { connection: queueConnection, prefix: settings.prefix });
    const events = new QueueEvents(JOBS_QUEUE, { connection: eventsConnection, prefix: settings.prefix });
    // Events of jobs added from now on must not be missed: listen before the first add.
    await events.waitUntilReady();
    return new Dispatcher(settings, queue, events, [queueConnection, eventsConnection], key);
  }

  async dispatch<P, R>(kind: JobKind<P, R>, payload: P, opts: DispatchOptions = {}): Promise<R> {
    const checked = kind.payload.safeParse(payload);
    if (!checked.success) throw new TypeError(`dispatch: the ${kind.name} payload is malformed: ${describeZodError(checked.error)}`);
    const jobId = jobIdFor(kind.name, opts.key ?? randomUUID());
    if (this.#waiters.has(jobId)) throw new RangeError(`dispatch: job ${jobId} is already being waited for by this dispatcher`);
    const result = new Promise<R>((resolve, reject) => {
      this.#waiters.set(jobId, {
        kind: kind as JobKind<unknown, unknown>,
        resolve: resolve as (v: unknown) => void,
        reject,
        ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
      });
    });
    try {
      const data = this.#key === undefined ? checked.data : seal(this.#key, "payload", kind.name, jobId, checked.data);
      await this.#queue.add(kind.name, data, this.#jobOptions(jobId));
    } catch (err) {
      this.#waiters.delete(jobId);
      throw err;
    }
    // The job may have finished already (dispatched before, by this key).
    await this.#settle(jobId);
    return result;
  }

  #jobOptions(jobId: string): JobsOptions {
    return {
      jobId,
      attempts: this.settings.attempts,
      backoff: { type: "exponential", delay: this.settings.backoffMs },
      // Kept a while so a dispatcher that missed the event still finds the result.
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 7 * 24 * 3600 },
    };
  }

  /** Resolves or rejects the waiter of `jobId` when the job is finished for good. */
  async #settle(jobId: string): Promise<void> {
    const waiter = this.#waiters.get(jobId);
    if (waiter === undefined) return;
    // The state first, then the job: a job read before its state would be from before it finished.
    const state = await this.#queue.getJobState(jobId);
    if (state !== "completed" && state !== "failed") return;
    const job = (await this.#queue.getJob(jobId)) as Job | undefined;
    if (job === undefined || !this.#waiters.delete(jobId)) return;
    if (state === "completed") {
      const opened = unseal(this.#key, "result", waiter.kind.name, jobId, job.returnvalue);
      if (!opened.ok) {
        waiter.reject(new JobFailedError(jobId, waiter.kind.name, `the worker's result ${opened.reason}`));
        return;
      }
      const parsed = waiter.kind.result.safeParse(opened.value);
      if (parsed.success) waiter.resolve(parsed.data);
      else waiter.reject(new JobFailedError(jobId, waiter.kind.name, `the worker's result is malformed: ${describeZodError(parsed.error)}`));
    } else {
      waiter.reject(new JobFailedError(jobId, waiter.kind.name, job.failedReason ?? "unknown reason"));
    }
  }

  /** Jobs waiting in, running in, or finished in the queue, by state. */
  async counts(): Promise<Record<string, number>> {
    return this.#queue.getJobCounts("waiting", "active", "delayed", "completed", "failed");
  }

  /** The jobs in the dead-letter queue, oldest first. */
  async deadLetters(): Promise<DeadLetter[]> {
    return this.#withDeadLetters((dlq) => readDeadLetters(dlq));
  }

  /**
   * Puts the dead-lettered job `jobId` back in the queue, with fresh attempts, and takes its dead
   * letter out: the failed job itself when the queue still keeps it, else a new job of the same
   * id, kind and payload. A QueueConfigError when there is no such dead letter. Nobody waits for
   * its result here: a batch run again (resume) picks it up.
   */
  async retryDeadLetter(jobId: string): Promise<void> {
    await this.#withDeadLetters(async (dlq) => {
      const letter = (await readDeadLetters(dlq)).find((l) => l.jobId === jobId);
      if (letter === undefined) throw new QueueConfigError(`no dead letter has job id "${jobId}" (\`tessera queue dead-letters\` lists them)`);
      const failed = (await this.#queue.getJob(jobId)) as Job | undefined;
      const state = failed === undefined ? undefined : await this.#queue.getJobState(jobId);
      if (failed !== undefined && state === "failed") await failed.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
      else if (failed === undefined || state === "unknown") await this.#queue.add(letter.kind, letter.payload, this.#jobOptions(jobId));
      // Any other state: the job is already back in the queue (or done); only the letter goes.
      await removeDeadLetter(dlq, jobId);
    });
  }

  /** Retries every dead letter (see retryDeadLetter); returns their job ids. */
  async retryAllDeadLetters(): Promise<string[]> {
    const ids = (await this.deadLetters()).map((l) => l.jobId);
    for (const id of ids) await this.retryDeadLetter(id);
    return ids;
  }

  async #withDeadLetters<T>(use: (dlq: Queue) => Promise<T>): Promise<T> {
    const dlq = new Queue(DEAD_LETTER_QUEUE, { connection: this.#connections[0]!, prefix: this.settings.prefix });
    try {
      return await use(dlq);
    } finally {
      await dlq.close();
    }
  }

  /** Stops waiting (pending dispatches reject) and closes the connections. */
  async close(): Promise<void> {
    for (const [jobId, waiter] of this.#waiters)
      waiter.reject(new JobFailedError(jobId, waiter.kind.name, "the dispatcher was closed before the job finished"));
    this.#waiters.clear();
    await this.#events.close();
    await this.#queue.close();
    for (const c of this.#connections) c.disconnect();
  }
}

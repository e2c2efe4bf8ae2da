/**
 * Worker threads that replay a search's traces (TVM's `ThreadedTraceApply` across threads): a
 * batch of replay requests is cut into chunks, each chunk a job of the isolation layer's task
 * pool, and the replies come back in request order whatever finished first. A chunk whose worker
 * crashes, times out or cannot be reached is replayed in the caller's thread with a warning: a
 * failure costs time, never a missing or wrong candidate.
 *
 * The workers start only once the search has spent `startWorkersAfterCpuMs` of CPU replaying in
 * its own thread (rent before buying): a thread started cold costs seconds of CPU (it loads the
 * compiler and replays in code the JIT has not warmed), more than a small run's whole search,
 * while a long run replays at most that much more in its own thread than with workers from the
 * start. CPU rather than wall time, so that a loaded machine does not start them sooner. A batch
 * whose pending replays would take the search's thread past that CPU by themselves (their number
 * times the mean CPU of the replays so far, `engageFor`) starts them at once: that rent would be
 * paid anyway, serially (a 256-trial run's first 256 fresh samples had replayed one after the
 * other, about 4 s of a GPU host's search, while its 15 workers waited).
 */
import { availableParallelism } from "node:os";
import type { ResourceLimits } from "node:worker_threads";
import { type EntryPoint, resolveEntryPoint } from "../isolation/entry-point.js";
import { TaskPool } from "../isolation/task-pool.js";
import { raisedLimits, workerDefaultLimits } from "../isolation/worker-heap-limits.js";
import { MetaScheduleError } from "../errors.js";
import type { Logger } from "../tune-context.js";
import { type ReplayJob, type ReplayReply, runReplayJob } from "./replay-job.js";
import { evenChunks, guidedChunks } from "./replay-chunks.js";

export interface ReplayPoolOptions {
  /** Worker threads; at least 1 (a search without workers has no pool). */
  readonly workers: number;
  /** The worker's code, when not the default `replay-worker` beside this module (see entry-point.ts). */
  readonly workerEntry?: EntryPoint;
  /** Limit per chunk, start of the worker included (default 120 s). */
  readonly timeoutMs?: number;
  /**
   * Whether the caller's thread replays a share of each batch (default true). Off while candidates
   * are measured meanwhile (overlapSearch): the caller's thread then also hands the runner its
   * results and next candidates, and a share of replays there held the GPU idle ~100 ms a candidate.
   */
  readonly callerShare?: boolean;
  /** Where the warning of a failed chunk goes. */
  readonly log?: Logger;
  /**
   * CPU time of replays in the search's own thread (`noteReplayedInThread`) after which the workers
   * take their share of the batches (default DEFAULT_START_WORKERS_AFTER_CPU_MS; 0: from the first batch).
   */
  readonly startWorkersAfterCpuMs?: number;
}

/**
 * About what a worker costs from the TypeScript sources on the 2-core development machine: its
 * start and its first replays in code the JIT has not warmed, about 4 CPU s a tuning run
 * (docs/benchmarks/ci-time.md). A run whose whole search replays for less CPU than this in its own
 * thread never starts one (a 6-trial CPU matmul tuning replays for about 3 CPU s).
 */
export const DEFAULT_START_WORKERS_AFTER_CPU_MS = 4_000;

/** Replays in the search's thread before their mean CPU projects a batch's (`engageFor`): the first ones run in code the JIT has not warmed. */
export const REPLAYS_BEFORE_PROJECTING = 4;

/**
 * The young generation a replay worker's heap gets at least (V8's default is 48 MB on Node 20).
 * A replay allocates a few MB of short-lived IR and most of it dies young; with twice the room the
 * scavenger runs half as often and copies survivors less: 0.95x the worker's CPU, measured side by
 * side on Node 20 (search-workers-local.md, session 13). Up to 48 MB more per worker. Where V8
 * gives more by default (192 MB on Node 24), the worker keeps the default (`replayWorkerLimits`).
 */
export const REPLAY_WORKER_YOUNG_GENERATION_MB = 96;

/** A replay worker's heap limits when it starts: `REPLAY_WORKER_YOUNG_GENERATION_MB`, or V8's default where that is more. */
export function replayWorkerLimits(): ResourceLimits {
  return raisedLimits({ maxYoungGenerationSizeMb: REPLAY_WORKER_YOUNG_GENERATION_MB }, workerDefaultLimits());
}

/** The default number of search workers: every core but the one of the search's own thread. */
export function defaultSearchWorkers(): number {
  return Math.max(0, availableParallelism() - 1);
}

export function checkSearchWorkers(value: number, where: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new MetaScheduleError(`${where}: searchWorkers must be a non-negative integer (0: replay in the search's thread), got ${value}`);
  return value;
}

export class ReplayPool {
  readonly workers: number;
  readonly #pool: TaskPool<ReplayJob, ReplayReply[]>;
  readonly #timeoutMs: number;
  readonly #log: Logger | undefined;
  readonly #callerShare: boolean;
  /** Chunks replayed in the caller's thread after a worker failed. */
  fallbacks = 0;
  readonly #startWorkersAfterCpuMs: number;
  /** CPU time of replays noted in the caller's thread so far (while the workers were not engaged). */
  #replayedInThreadMs = 0;
  /** Replays noted in the caller's thread so far (while the workers were not engaged). */
  #replayedInThread = 0;
  /** Set by `engageFor` when a batch's pending replays would pass `startWorkersAfterCpuMs` by themselves. */
  #engagedAhead = false;

  constructor(opts: ReplayPoolOptions) {
    if (!Number.isSafeInteger(opts.workers) || opts.workers < 1)
      throw new MetaScheduleError(`ReplayPool: workers must be a positive integer, got ${opts.workers}`);
    this.workers = opts.workers;
    this.#timeoutMs = opts.timeoutMs ?? 120_000;
    this.#log = opts.log;
    this.#callerShare = opts.callerShare ?? true;
    const after = opts.startWorkersAfterCpuMs ?? DEFAULT_START_WORKERS_AFTER_CPU_MS;
    if (!(after >= 0)) throw new MetaScheduleError(`ReplayPool: startWorkersAfterCpuMs must be a non-negative number, got ${after}`);
    this.#startWorkersAfterCpuMs = after;
    const entry = opts.workerEntry ?? resolveEntryPoint(import.meta.url, { module: "replay-worker", bundle: "ms-replay-worker.mjs" });
    this.#pool = new TaskPool({ kind: "thread", entry, size: opts.workers, resourceLimits: replayWorkerLimits });
  }

  /** Worker threads started so far (restarts included). */
  get workersStarted(): number {
    return this.#pool.spawned;
  }

  /**
   * Whether the search's batches should go to the workers (`replay`) yet: once its own thread has
   * replayed for `startWorkersAfterCpuMs` of CPU. Before that the caller replays in its own thread and notes
   * the time (`noteReplayedInThread`); either way a seed gives the same candidates.
   */
  get engaged(): boolean {
    return this.#engagedAhead || this.#replayedInThreadMs >= this.#startWorkersAfterCpuMs;
  }

  /** Counts `ms` of CPU spent replaying one trace in the search's own thread towards starting the workers. */
  noteReplayedInThread(ms: number): void {
    if (this.engaged) return;
    this.#replayedInThreadMs += ms;
    this.#replayedInThread++;
    if (this.engaged) this.#logStarted("");
  }

  /**
   * Whether `pending` replays of the batch at hand should go to the workers: once `engaged`, or
   * when, at the mean CPU of the `REPLAYS_BEFORE_PROJECTING` or more replays noted so far, they
   * would take the search's thread past `startWorkersAfterCpuMs` by themselves (the pool then
   * engages now: replaying them here first would only delay the workers it starts anyway).
   */
  engageFor(pending: number): boolean {
    if (this.engaged) return true;
    if (this.#replayedInThread < REPLAYS_BEFORE_PROJECTING) return false;
    const projectedMs = this.#replayedInThreadMs + (pending * this.#replayedInThreadMs) / this.#replayedInThread;
    if (projectedMs < this.#startWorkersAfterCpuMs) return false;
    this.#engagedAhead = true;
    this.#logStarted(` (the ${pending} replays pending in a batch would have taken it to ${(projectedMs / 1000).toFixed(1)} s)`);
    return true;
  }

  /**
   * Starts every worker now, each with `job` as its first task (warm-up.ts: a few replays of the
   * task's design space, their replies dropped), and engages the pool, so that the first round's
   * batches go to workers that have loaded the compiler and run its code once, rather than to
   * threads started cold by that round (3–7 s of a GPU run's first round, with nothing measured
   * meanwhile). For a caller with other work before the search (a bench's baselines, the task's
   * set-up). Settles when every worker has answered; a failed warm-up is logged, never thrown.
   */
  async warmUp(job: ReplayJob): Promise<void> {
    if (!this.engaged) {
      this.#engagedAhead = true;
      this.#logStarted(" (warmed up ahead of the search)");
    }
    const started = performance.now();
    const outcomes = await Promise.all(Array.from({ length: this.workers }, () => this.#pool.run(job, this.#timeoutMs)));
    const failed = outcomes.filter((o) => !o.ok).length;
    this.#log?.(
      failed === 0 ? "debug" : "warn",
      `search workers: ${this.workers - failed} of ${this.workers} warmed up in ${((performance.now() - started) / 1000).toFixed(1)} s (${job.requests.length} replay(s) each)`,
    );
  }

  #logStarted(why: string): void {
    this.#log?.(
      "debug",
      `search workers: ${this.workers} started after ${(this.#replayedInThreadMs / 1000).toFixed(1)} s of CPU replaying in the search's thread${why}`,
    );
  }

  /**
   * One reply per request of `job`, in order, whether or not the pool is `engaged`. The caller's thread takes an equal share (the last
   * one; unless `callerShare` is off) while the workers replay one chunk each: a search on N cores
   * keeps N threads busy. Without a caller's share, the workers take shrinking chunks, each the
   * next free worker's (replay-chunks.ts): replays differ in cost (a rejected one stops early), and
   * equal shares left workers idle while the slowest finished. (With a caller's share, a worker
   * done early could not get its next chunk while the caller's thread replays.)
   */
  async replay(job: ReplayJob): Promise<ReplayReply[]> {
    const { requests } = job;
    if (requests.length === 0) return [];
    const ownSize = this.#callerShare && requests.length > 1 ? Math.floor(requests.length / (this.workers + 1)) : 0;
    const pooledCount = requests.length - ownSize;
    const chunks = (ownSize === 0 ? guidedChunks(pooledCount, this.workers) : evenChunks(pooledCount, this.workers)).map(
      ([from, to]): ReplayJob => ({ ...job, requests: requests.slice(from, to) }),
    );
    const pooled = Promise.all(chunks.map((chunk) => this.#replayChunk(chunk)));
    const ownReplies = ownSize === 0 ? [] : runReplayJob({ ...job, requests: requests.slice(pooledCount) });
    return [...(await pooled).flat(), ...ownReplies];
  }

  async #replayChunk(chunk: ReplayJob): Promise<ReplayReply[]> {
    const outcome = await this.#pool.run(chunk, this.#timeoutMs);
    if (outcome.ok && outcome.value.length === chunk.requests.length) return outcome.value;
    const why = outcome.ok ? `it answered ${outcome.value.length} replies for ${chunk.requests.length} traces` : `${outcome.kind}: ${outcome.error}`;
    this.fallbacks++;
    this.#log?.("warn", `search worker failed on ${chunk.requests.length} trace(s) (${why}); replaying them in the search's thread`);
    return runReplayJob(chunk);
  }

  async dispose(): Promise<void> {
    await this.#pool.dispose();
  }
}

/**
 * A pool of isolated workers (threads or child processes) that runs tasks with a time limit
 * each. A task whose worker crashes, or that outlives its limit, fails with the reason and its
 * worker is replaced; the other tasks go on. Workers start lazily and are reused.
 */
import { spawnWorker, type IsolatedWorker, type SpawnOptions } from "./isolated-worker.js";
import { isWorkerMessage, type TaskRequest } from "./protocol.js";

export type TaskOutcome<R> =
  | { readonly ok: true; readonly value: R }
  /** `error`: the task threw; `timeout`: it outlived its limit; `crash`: its worker died under it or never started. */
  | { readonly ok: false; readonly kind: "error" | "timeout" | "crash"; readonly error: string };

export interface TaskPoolOptions extends SpawnOptions {
  /** Workers running at once. */
  readonly size: number;
  /** How long a worker may take to start (load its code) before its task fails; default 120 s. */
  readonly startTimeoutMs?: number;
  /** Replace a worker after any failed task, not only after a fatal one (a CUDA context after an error). */
  readonly restartAfterFailure?: boolean;
}

interface Pending<T, R> {
  readonly id: number;
  readonly task: T;
  readonly timeoutMs: number;
  readonly resolve: (outcome: TaskOutcome<R>) => void;
}

interface Slot<T, R> {
  worker: IsolatedWorker | undefined;
  ready: boolean;
  current: Pending<T, R> | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class TaskPool<T, R> {
  readonly #opts: TaskPoolOptions;
  readonly #slots: Slot<T, R>[];
  readonly #queue: Pending<T, R>[] = [];
  #nextId = 1;
  #disposed = false;
  /** Workers started so far (restarts included). */
  spawned = 0;

  constructor(opts: TaskPoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new RangeError(`TaskPool: size must be a positive integer, got ${opts.size}`);
    this.#opts = opts;
    this.#slots = Array.from({ length: opts.size }, () => ({ worker: undefined, ready: false, current: undefined, timer: undefined }));
  }

  /** Runs `task` on the next free worker; never rejects. */
  run(task: T, timeoutMs: number): Promise<TaskOutcome<R>> {
    if (this.#disposed) return Promise.resolve({ ok: false, kind: "error", error: "the worker pool was disposed" });
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, task, timeoutMs, resolve });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.current !== undefined) continue;
      slot.current = this.#queue.shift();
      if (slot.worker === undefined) this.#start(slot);
      else if (slot.ready) this.#post(slot);
    }
  }

  #start(slot: Slot<T, R>): void {
    slot.ready = false;
    this.spawned++;
    let worker: IsolatedWorker;
    try {
      worker = spawnWorker(this.#opts, {
        onMessage: (m) => {
          if (slot.worker === worker) this.#onMessage(slot, m);
        },
        onExit: (why) => {
          if (slot.worker === worker) this.#onExit(slot, why);
        },
      });
    } catch (err) {
      // Thrown at once (an entry URL a worker cannot load, no TypeScript loader): the task fails
      // with the reason, rather than run() rejecting and the slot staying taken forever.
      this.#finish(slot, { ok: false, kind: "crash", error: `the worker could not be started: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    slot.worker = worker;
    // Until the worker is ready, the task's clock is the start limit.
    this.#arm(slot, this.#opts.startTimeoutMs ?? 120_000, "crash", (ms) => `the worker did not start within ${ms / 1000} s`);
  }

  #post(slot: Slot<T, R>): void {
    const pending = slot.current;
    if (pending === undefined || slot.worker === undefined) return;
    this.#arm(slot, pending.timeoutMs, "timeout", (ms) => `timed out after ${ms / 1000} s`);
    const request: TaskRequest<T> = { type: "task", id: pending.id, task: pending.task };
    slot.worker.setBusy(true);
    try {
      slot.worker.post(request);
    } catch (err) {
      // Not structured-cloneable (a function, a class instance the worker cannot rebuild...).
      this.#finish(slot, { ok: false, kind: "error", error: `the task cannot be sent to the worker: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  #arm(slot: Slot<T, R>, ms: number, kind: "timeout" | "crash", why: (ms: number) => string): void {
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      this.#replace(slot);
      this.#finish(slot, { ok: false, kind, error: why(ms) });
    }, ms);
  }

  #onMessage(slot: Slot<T, R>, m: unknown): void {
    if (!isWorkerMessage(m)) return;
    if (m.type === "ready") {
      slot.ready = true;
      clearTimeout(slot.timer);
      this.#post(slot);
      return;
    }
    if (slot.current === undefined || m.id !== slot.current.id) return;
    if (m.ok) {
      this.#finish(slot, { ok: true, value: m.value as R });
      return;
    }
    if (m.fatal || this.#opts.restartAfterFailure === true) this.#replace(slot);
    this.#finish(slot, { ok: false, kind: "error", error: m.error });
  }

  #onExit(slot: Slot<T, R>, why: string): void {
    slot.worker = undefined;
    slot.ready = false;
    if (slot.current !== undefined) this.#finish(slot, { ok: false, kind: "crash", error: why });
  }

  /** Kills the slot's worker; the next task of the slot starts a new one. */
  #replace(slot: Slot<T, R>): void {
    slot.worker?.kill();
    slot.worker = undefined;
    slot.ready = false;
  }

  #finish(slot: Slot<T, R>, outcome: TaskOutcome<R>): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    const pending = slot.current;
    slot.current = undefined;
    pending?.resolve(outcome);
    this.#dispatch();
    if (slot.current === undefined) slot.worker?.setBusy(false);
  }

  /** Kills every worker; queued and running tasks fail. Idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const pending of this.#queue.splice(0)) pending.resolve({ ok: false, kind: "error", error: "the worker pool was disposed" });
    for (const slot of this.#slots) {
      this.#replace(slot);
      clearTimeout(slot.timer);
      const pending = slot.current;
      slot.current = undefined;
      pending?.resolve({ ok: false, kind: "error", error: "the worker pool was disposed" });
    }
  }
}

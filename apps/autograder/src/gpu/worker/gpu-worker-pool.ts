/**
 * GPU workers for gradings that run side by side (batch grading with several jobs): one grading
 * holds one lease, a GpuBackend backed by a worker of its own, and gives it back with dispose().
 * Leases beyond the pool's size wait for one to be given back. Each worker keeps its process
 * between leases, and replaces it after a fault, as a lone GpuWorker does.
 */
import type { GpuBackend } from "../../grade/numerics-types.js";
import { GpuWorker, type GpuWorkerOptions } from "./gpu-worker.js";

export interface GpuWorkerPoolOptions extends GpuWorkerOptions {
  /** Workers (GPU processes) at most; default 1: gradings then take turns on the GPU. */
  readonly size?: number;
}

export class GpuWorkerPool {
  readonly size: number;
  readonly #idle: GpuWorker[] = [];
  readonly #waiting: { resolve: (worker: GpuWorker) => void; reject: (err: Error) => void }[] = [];
  readonly #all: GpuWorker[] = [];
  readonly #make: () => GpuWorker;
  #disposed = false;

  constructor(
    readonly name: string,
    opts: GpuWorkerPoolOptions = {},
  ) {
    const size = opts.size ?? 1;
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`GpuWorkerPool: size must be a positive integer, got ${size}`);
    this.size = size;
    this.#make = () => new GpuWorker(name, opts);
  }

  /** Worker processes started so far, over all workers (a fault starts another). */
  get workersStarted(): number {
    return this.#all.reduce((sum, w) => sum + w.workersStarted, 0);
  }

  /** A GPU for one grading; its dispose() gives the worker back (idempotent). */
  async lease(): Promise<GpuBackend> {
    if (this.#disposed) throw new Error("GpuWorkerPool.lease: the pool was disposed");
    const worker = await this.#acquire();
    let held = true;
    const live = (call: string): GpuWorker => {
      if (!held) throw new Error(`GpuBackend.${call}: the GPU lease was given back`);
      return worker;
    };
    return {
      name: worker.name,
      key: worker.key,
      numerics: async (req) => live("numerics").numerics(req),
      time: async (schedule, timing, assignment) => live("time").time(schedule, timing, assignment),
      dispose: () => {
        if (!held) return;
        held = false;
        this.#release(worker);
      },
    };
  }

  #acquire(): Promise<GpuWorker> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    if (this.#all.length < this.size) {
      const worker = this.#make();
      this.#all.push(worker);
      return Promise.resolve(worker);
    }
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  #release(worker: GpuWorker): void {
    if (this.#disposed) return;
    const next = this.#waiting.shift();
    if (next !== undefined) next.resolve(worker);
    else this.#idle.push(worker);
  }

  /** Kills every worker process; leases still held fail their later requests, waiting ones reject. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const w of this.#waiting.splice(0)) w.reject(new Error("GpuWorkerPool.lease: the pool was disposed while waiting for a GPU worker"));
    for (const worker of this.#all) worker.dispose();
  }
}

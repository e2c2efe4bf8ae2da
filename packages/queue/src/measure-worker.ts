/**
 * A worker that only measures (tuning candidates of `tessera tune --redis`): the "measure" handler
 * and the lock of this machine's GPU, which it shares with every other worker on that GPU (the
 * autograder's grading workers included), so that no two kernels are timed on one GPU at once.
 */
import { hostname } from "node:os";
import { createMeasureHandler } from "./measure-kind.js";
import { RedisMutex } from "./redis-mutex.js";
import { queueSettings } from "./settings.js";
import { type RunningWorker, type WorkerOptions, startWorker } from "./worker.js";

/** The Redis key of the lock of this process's GPU: one per machine and CUDA_VISIBLE_DEVICES. */
export function gpuLockKey(env: NodeJS.ProcessEnv = process.env): string {
  return `${queueSettings({}, env).prefix}:gpu-lock:${hostname()}:${env.CUDA_VISIBLE_DEVICES ?? "0"}`;
}

export type MeasureWorkerOptions = Omit<WorkerOptions, "handlers">;

export async function startMeasureWorker(opts: MeasureWorkerOptions): Promise<RunningWorker> {
  const lock = await RedisMutex.open(opts.redisUrl, gpuLockKey());
  const measure = createMeasureHandler((work) => lock.run(work));
  const release = async (): Promise<void> => {
    await measure.dispose();
    lock.close();
  };
  let worker: RunningWorker;
  try {
    worker = await startWorker({ ...opts, handlers: [measure.handler] });
  } catch (err) {
    await release();
    throw err;
  }
  const closed = worker.closed.then(release);
  return {
    name: worker.name,
    closed,
    close: async (force) => {
      await worker.close(force);
      await closed;
    },
  };
}

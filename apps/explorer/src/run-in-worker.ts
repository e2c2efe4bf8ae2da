/** Runs one request in a fresh Web Worker, terminated when it takes longer than the limit. */
import type { RunRequest, WorkerReply } from "./protocol.js";

/** Like the grader's sandbox, a run has a time limit; the simulation of a 256³ kernel takes a few seconds. */
export const TIME_LIMIT_MS = 30_000;

export type WorkerOutcome = WorkerReply | { readonly kind: "timeout"; readonly limitMs: number };

export function runInWorker(request: RunRequest, limitMs = TIME_LIMIT_MS): Promise<WorkerOutcome> {
  const worker = new Worker(new URL("./worker/schedule.worker.ts", import.meta.url), { type: "module" });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      worker.terminate();
      resolve({ kind: "timeout", limitMs });
    }, limitMs);
    const finish = (outcome: WorkerOutcome) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(outcome);
    };
    worker.onmessage = (event: MessageEvent<WorkerReply>) => finish(event.data);
    worker.onerror = (event) => finish({ kind: "crash", message: event.message || "the worker failed to start" });
    worker.postMessage(request);
  });
}

/**
 * Takes from the worker's global what a schedule has no use for and the grader's sandbox does not
 * offer either: the network, storage, nested workers, script loading, timers and the GPU (the page
 * runs the kernels on WebGPU, not the student's code). A worker already has no
 * access to the page (no DOM, no window); the page shows what comes back as text only.
 */
const REMOVED = [
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "WebTransport",
  "EventSource",
  "importScripts",
  "indexedDB",
  "caches",
  "BroadcastChannel",
  "Worker",
  "SharedWorker",
  "setTimeout",
  "setInterval",
] as const;

export function confineWorkerGlobal(scope: object): void {
  for (const name of REMOVED) {
    if (name in scope) Object.defineProperty(scope, name, { value: undefined, writable: false, configurable: false });
  }
  const navigator = (scope as { navigator?: object }).navigator;
  if (navigator !== undefined && "gpu" in navigator) Object.defineProperty(navigator, "gpu", { value: undefined, writable: false, configurable: false });
}

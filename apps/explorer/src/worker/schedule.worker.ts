/// <reference lib="webworker" />
/** The Web Worker that runs one schedule: the page starts a fresh one per run and terminates it on timeout. */
import type { RunRequest, WorkerReply } from "../protocol.js";
import { confineWorkerGlobal } from "./confine.js";
import { explore } from "./explore.js";

const scope = self as unknown as DedicatedWorkerGlobalScope;
const reply = (message: WorkerReply) => scope.postMessage(message);
confineWorkerGlobal(scope);

scope.onmessage = (event: MessageEvent<RunRequest>) => {
  try {
    reply({ kind: "result", result: explore(event.data) });
  } catch (err) {
    reply({ kind: "crash", message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
};

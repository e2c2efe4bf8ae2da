/**
 * The worker side of an isolated pool: `serveTasks(handler)` answers the pool's tasks one at a
 * time, in a worker thread (through `parentPort`) or in a forked child process (through IPC).
 * A handler that throws, or whose result cannot be sent back, gets an error reply; `FatalTaskError` also asks the pool to replace this
 * worker (its state can no longer be trusted).
 */
import { parentPort } from "node:worker_threads";
import { isWorkerMessage, type TaskReply, type TaskRequest, type WorkerMessage } from "./protocol.js";

/** Marks a FatalTaskError by a registered symbol rather than by class identity (see isFatalTaskError). */
const FATAL = Symbol.for("tessera.isolation.FatalTaskError");

/** An error after which this worker must not take another task. */
export class FatalTaskError extends Error {
  override name = "FatalTaskError";
  readonly [FATAL] = true;
}

/**
 * Whether `err` is a FatalTaskError, also one made by another copy of this module: a backend
 * module the runner's child imports from the sources while the child itself runs from a bundle
 * (or dist) has its own FatalTaskError class, which `instanceof` would not recognise.
 */
export function isFatalTaskError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { [FATAL]?: unknown })[FATAL] === true;
}

export type TaskHandler<T, R> = (task: T) => Promise<R> | R;

interface Channel {
  send(message: WorkerMessage<unknown>): void;
  onMessage(listener: (message: unknown) => void): void;
}

function channel(): Channel {
  const port = parentPort;
  if (port !== null)
    return {
      send: (m) => port.postMessage(m),
      onMessage: (l) => port.on("message", l),
    };
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("serveTasks: not in a worker thread nor in a child process with an IPC channel; start this file through its pool");
  return {
    send: (m) => {
      send(m);
    },
    onMessage: (l) => process.on("message", l),
  };
}

/** `Name: message` of an error (what a failed task reports), or the thrown value as text. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message.length > 0 ? `${err.name}: ${err.message}` : err.name;
  return String(err);
}

export function serveTasks<T, R>(handler: TaskHandler<T, R>): void {
  const ch = channel();
  ch.onMessage((message) => {
    if (isWorkerMessage(message) || typeof message !== "object" || message === null || (message as { type?: unknown }).type !== "task") return;
    const request = message as TaskRequest<T>;
    void (async (): Promise<void> => {
      let reply: TaskReply<R>;
      try {
        reply = { type: "result", id: request.id, ok: true, value: await handler(request.task) };
      } catch (err) {
        reply = { type: "result", id: request.id, ok: false, error: errorText(err), fatal: isFatalTaskError(err) };
      }
      try {
        ch.send(reply);
      } catch (err) {
        // A result that cannot be cloned (a function, a class instance...): the task fails, the worker goes on.
        ch.send({ type: "result", id: request.id, ok: false, error: `the result cannot be sent back from the worker: ${errorText(err)}`, fatal: false });
      }
    })();
  });
  ch.send({ type: "ready" });
}

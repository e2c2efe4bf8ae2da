/**
 * The messages between a pool and its isolated workers (threads or child processes). A worker
 * says `ready` once it listens; then it gets one task at a time and answers with its id.
 */

export interface TaskRequest<T> {
  readonly type: "task";
  readonly id: number;
  readonly task: T;
}

export type TaskReply<R> =
  | { readonly type: "result"; readonly id: number; readonly ok: true; readonly value: R }
  /** `fatal`: the worker is no longer usable (e.g. a CUDA context after a fault) and is replaced. */
  | { readonly type: "result"; readonly id: number; readonly ok: false; readonly error: string; readonly fatal: boolean };

export interface ReadyMessage {
  readonly type: "ready";
}

export type WorkerMessage<R> = TaskReply<R> | ReadyMessage;

export function isWorkerMessage(x: unknown): x is WorkerMessage<unknown> {
  if (typeof x !== "object" || x === null) return false;
  const type = (x as { type?: unknown }).type;
  return type === "ready" || type === "result";
}

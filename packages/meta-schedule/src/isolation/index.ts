/** `@tessera/meta-schedule/isolation`: work in worker threads or child processes that a fault or a hang cannot take down. */
export { TaskPool, type TaskOutcome, type TaskPoolOptions } from "./task-pool.js";
export { serveTasks, FatalTaskError, type TaskHandler } from "./serve.js";
export { resolveEntryPoint, type EntryPoint, type EntryNames } from "./entry-point.js";

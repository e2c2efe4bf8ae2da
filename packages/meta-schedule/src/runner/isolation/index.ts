export { TaskPool, type TaskOutcome, type TaskPoolOptions } from "./task-pool.js";
export { serveTasks, FatalTaskError, type TaskHandler } from "./serve.js";
export { resolveEntryPoint, typeScriptExecArgv, typeScriptThreadBootstrap, type EntryPoint, type EntryNames } from "./entry-point.js";
export type { WorkerKind, SpawnOptions } from "./isolated-worker.js";

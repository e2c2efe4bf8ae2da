/**
 * @tessera/queue — measurement and grading jobs dispatched to worker processes through BullMQ on
 * Redis. Named exports only; the private redis-server for tests is `@tessera/queue/testing`.
 */
export { Dispatcher, type DispatchOptions } from "./dispatcher.js";
export { startWorker, type RunningWorker, type WorkerOptions } from "./worker.js";
export { defineJobKind, handlerFor, type JobKind, type JobContext, type JobHandler } from "./job-kind.js";
export { DeadLetterSchema, type DeadLetter } from "./dead-letter.js";
export { JobFailedError, JobRejectedError, QueueConfigError } from "./errors.js";
export { parseRedisUrl, redactUrl, isLoopbackHost, type RedisAddress, PASSWORD_ENV, PASSWORD_FILE_ENV, USERNAME_ENV } from "./redis-url.js";
export { refuseOpenRedis, type AuthPolicyOptions } from "./auth-policy.js";
export { queueSettings, type QueueSettings } from "./settings.js";
export { RedisMutex, type RedisMutexOptions } from "./redis-mutex.js";
export { measureDispatch, createMeasureHandler, type MeasureHandler } from "./measure-kind.js";
export { KEY_ENV, KEY_FILE_ENV, queueKeyFromEnv } from "./signing.js";
export { startMeasureWorker, gpuLockKey, type MeasureWorkerOptions } from "./measure-worker.js";
export { startGpuWorkers, type GpuWorkers, type GpuWorkersOptions, type WorkerCommand } from "./worker-processes.js";
// A private Redis on loopback, for a tuning run that spreads over this machine's GPUs (tune --gpus without --redis).
export { startRedisServer, findRedisServer, type RedisServer } from "./redis-server.js";
export { stopOnSignals } from "./stop-on-signals.js";

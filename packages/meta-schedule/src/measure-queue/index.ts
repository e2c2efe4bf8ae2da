/**
 * `@tessera/meta-schedule/measure-queue`: measuring on other processes or machines through a job
 * queue: the `QueueRunner` that sends measure jobs, and the job's payload, result and worker side.
 */
export { QueueRunner, type MeasureDispatch, type QueueRunnerOptions } from "./queue-runner.js";
export {
  MeasureJobPayloadSchema,
  MeasureJobResultSchema,
  MeasureJobRunners,
  RemoteRunnerSpecSchema,
  measureJobPayload,
  runnerInputOf,
  type MeasureJobPayload,
  type MeasureJobResult,
  type RemoteRunnerSpec,
} from "./measure-job.js";
export { decodeDigest, encodeDigest, type EncodedDigest } from "./digest-json.js";

/**
 * @tessera/meta-schedule — TVM's MetaSchedule in TypeScript: design-space generators (schedule
 * functions, unions, post-order application of schedule rules), postprocessors, mutators,
 * replay-trace and evolutionary search with a learned cost model, a JSON tuning database, a
 * parallel builder, runners (an isolated GPU runner, a deterministic simulated runner), task
 * schedulers and `tuneTIR`.
 */
export * from "./errors.js";
export * from "./workload.js";
export * from "./arg-info.js";
export * from "./tune-context.js";
export * from "./interfaces/schedule-rule.js";
export * from "./interfaces/postproc.js";
export * from "./interfaces/mutator.js";
export * from "./interfaces/space-generator.js";
export * from "./space/replay.js";
export * from "./interfaces/candidate.js";
export * from "./interfaces/search-strategy.js";
export * from "./builder/index.js";
export * from "./runner/index.js";
export { QueueRunner, type QueueRunnerOptions, type MeasureDispatch } from "./measure-queue/queue-runner.js";
export {
  MeasureJobPayloadSchema,
  MeasureJobResultSchema,
  MeasureJobRunners,
  RemoteRunnerSpecSchema,
  measureJobPayload,
  runnerInputOf,
  type MeasureJobPayload,
  type RemoteRunnerSpec,
} from "./measure-queue/measure-job.js";
export * from "./interfaces/database.js";
export * from "./interfaces/cost-model.js";
export * from "./interfaces/feature-extractor.js";
export * from "./space/schedule-fn.js";
export * from "./space/trace-space.js";
export * from "./space/union.js";
export * from "./search/index.js";
export * from "./database/index.js";
export * from "./task-scheduler/index.js";
export * from "./report/index.js";
export * from "./tune/index.js";
export * from "./tune.js";
export * from "./rules/index.js";
export * from "./postproc/index.js";
export * from "./mutator/index.js";
export * from "./space/index.js";
export * from "./cost-model/index.js";
export * from "./feature/index.js";

export * from "./runner.js";
export { LocalRunner, runnerChildEntry, DEFAULT_RUN_TIMEOUT_SEC, type LocalRunnerOptions } from "./local-runner.js";
export type { MeasureBackend, MeasureResult, MeasureTask } from "./measure-backend.js";
export { randomArgsFor } from "./random-args.js";
export { type OutputDigest, type OutputSamples, DEFAULT_OUTPUT_SAMPLES, digestOf, sampleIndices } from "./output-digest.js";
export { compareArguments, compareDigests, firstResultChecker, referenceChecker, cpuReference, type RunnerChecker, type CheckTolerance } from "./checker.js";
export * from "./isolation/index.js";
export { SimulatedRunner, type SimulatedRunnerOptions } from "./simulated-runner.js";
export { estimateLatency, estimateKernel, type LatencyBound, type KernelEstimate, type LatencyEstimate } from "./simulated/latency-model.js";
export { seededNormal } from "./simulated/seeded-normal.js";
export { profileKernel, type KernelProfile } from "./simulated/kernel-profile.js";
export { gpuSpecOf, type GpuSpec } from "./simulated/gpu-spec.js";
export { QueueRunner, type QueueRunnerOptions, type MeasureDispatch } from "./queue/queue-runner.js";
export {
  MeasureJobPayloadSchema,
  MeasureJobResultSchema,
  MeasureJobRunners,
  RemoteRunnerSpecSchema,
  measureJobPayload,
  runnerInputOf,
  type MeasureJobPayload,
  type RemoteRunnerSpec,
} from "./queue/measure-job.js";
export { hostReferenceChecker } from "./host-reference.js";

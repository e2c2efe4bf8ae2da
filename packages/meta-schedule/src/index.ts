/**
 * @tessera/meta-schedule: TVM's MetaSchedule in TypeScript. This entry holds `tuneTIR` /
 * `tuneTasks`, the component interfaces and the standard components; the design-space building
 * blocks, reports, process isolation, queue measuring and the latency model have subpath entries
 * (`/space`, `/report`, `/isolation`, `/measure-queue`, `/latency-model`).
 */

// Tuning
export { resolveTuneTarget, tuneTIR, tuneTasks, type TaskResult, type TuneFunction, type TuneResult, type TuneTIRResult } from "./tune/index.js";
export type { TuneOptions, TuneProgress } from "./tune/options.js";
export { logDirOf } from "./tune/log-files.js";
export {
  COST_MODEL_NAMES,
  DATABASE_NAMES,
  RUNNER_NAMES,
  STRATEGY_NAMES,
  defaultSpaceFor,
  makeBuilder,
  makeCostModel,
  makeRunner,
  makeStrategy,
  openDatabase,
  scheduleFnSpace,
  type CostModelName,
  type DatabaseName,
  type RunnerName,
  type ScheduleFnLike,
  type StrategyName,
} from "./tune/provided.js";

// What a task is: its context, workload and arguments; errors
export {
  gpuTargetOf,
  silentLogger,
  tuneContext,
  type LogLevel,
  type Logger,
  type TuneContext,
  type TuneContextOptions,
  type TuneTarget,
} from "./tune-context.js";
export { workloadOf, type Workload } from "./workload.js";
export { argsInfoOf, type ArgInfo, type TensorArgInfo } from "./arg-info.js";
export { DatabaseError, MetaScheduleError, MissingPeerDependencyError, SpaceGenerationError } from "./errors.js";

// The component interfaces (TVM's headers)
export type { MeasureCandidate } from "./interfaces/candidate.js";
export type { Builder, BuilderInput, BuilderResult, BuiltArtifact, HostArgument, HostLibraryArtifact, HostPlan } from "./interfaces/builder.js";
export {
  DEFAULT_EVALUATOR_CONFIG,
  FAILED_RUN_SECS,
  meanRunSecs,
  type EvaluatorConfig,
  type Runner,
  type RunnerInput,
  type RunnerResult,
} from "./interfaces/runner.js";
export type { CostModel } from "./interfaces/cost-model.js";
export type { FeatureExtractor, FeatureMatrix } from "./interfaces/feature-extractor.js";
export type { PreTuningOptions, SearchStrategy } from "./interfaces/search-strategy.js";
export type { SpaceGenerator } from "./interfaces/space-generator.js";
export type { ScheduleRule } from "./interfaces/schedule-rule.js";
export { POSTPROC_OK, rejected, type Postproc, type PostprocResult } from "./interfaces/postproc.js";
export type { Mutator, WeightedMutator } from "./interfaces/mutator.js";
export type { Database, TargetConfig, TuningRecord } from "./interfaces/database.js";

// Design spaces (rules, postprocessors and mutators: `@tessera/meta-schedule/space`)
export { ScheduleFnSpace, type ScheduleFn, type ScheduleFnSpaceOptions, type SpaceOptions } from "./space/schedule-fn.js";
export { TraceSpace } from "./space/trace-space.js";
export { SpaceGeneratorUnion } from "./space/union.js";
export { defaultCudaSpace, defaultCudaSpaceGenerator, type CudaSpace, type CudaSpaceOptions } from "./space/defaults.js";
export { defaultCpuSpaceGenerator } from "./space/cpu-defaults.js";
export { replayWithPostprocs, type ReplayOptions, type ReplayOutcome } from "./space/replay.js";

// Search strategies
export { EvolutionarySearch, DEFAULT_EVOLUTIONARY_SEARCH_CONFIG, type EvolutionarySearchConfig } from "./search/evolutionary-search.js";
export { ReplayTraceStrategy, type ReplayTraceConfig } from "./search/replay-trace.js";
export { ReplayFuncStrategy, type ReplayFuncConfig } from "./search/replay-func.js";
export { RecordedFirst } from "./search/recorded-first.js";
export { ReplayPool, type ReplayPoolOptions } from "./search/replay-pool.js";
export { WARM_UP_REPLAYS, warmReplayPool, warmUpJob } from "./search/warm-up.js";

// Cost models and features
export { HybridModel, type HybridModelOptions } from "./cost-model/hybrid-model.js";
export { ForestModel, type ForestModelOptions } from "./cost-model/forest-model.js";
export { AnalyticModel } from "./cost-model/analytic-model.js";
export { RandomModel } from "./cost-model/random-model.js";
export { PerStoreFeature } from "./feature/per-store-feature-extractor.js";
export { KernelSummaryFeature } from "./feature/kernel-summary-feature.js";

// Requested float32 GEMM precision (tf32, 3xTF32)
export {
  DEFAULT_TF32X3_CHUNK,
  FP32_PRECISIONS,
  type Fp32Precision,
  type Fp32PrecisionOptions,
  parseFp32Precision,
  withFp32Precision,
} from "./precision/fp32-precision.js";

// Builders and runners
export { LocalBuilder, type LocalBuilderOptions } from "./builder/local-builder.js";
export { CpuBuilder, type CpuBuilderOptions } from "./builder/cpu-builder.js";
export { LocalRunner, type LocalRunnerOptions } from "./runner/local-runner.js";
export { SimulatedRunner, type SimulatedRunnerOptions } from "./runner/simulated-runner.js";
export { firstResultChecker, referenceChecker, type CheckTolerance, type RunnerChecker } from "./runner/checker.js";
export { hostReferenceChecker } from "./runner/host-reference.js";

// Databases
export { JSONDatabase, type JSONDatabaseOptions } from "./database/json-database.js";
export { MemoryDatabase } from "./database/memory-database.js";
export { queryBestSchedule, type BestSchedule } from "./database/query.js";
export { recordAppliesTo } from "./database/target-match.js";
export { queryBestRecord, scheduleFromRecord } from "./database/apply-record.js";

// Task schedulers
export { RoundRobin } from "./task-scheduler/round-robin.js";
export { GradientBased, type GradientBasedOptions } from "./task-scheduler/gradient-based.js";
export { TaskScheduler, type TaskSchedulerOptions, type TrialEvent } from "./task-scheduler/task-scheduler.js";
export type { TuneTask } from "./task-scheduler/task-record.js";
export { estimateFlops } from "./task-scheduler/flops.js";

export { buildHost, openHostLibrary, type HostModule, type HostBuildOptions, type HostBuildInput, type HostTiming } from "./host-module.js";
export { compileC, probeCCompiler, cFlags, cCompilerCommand, defaultCCacheDir, type CCompilerInfo, type CompiledLibrary, type CompileCOptions } from "./compiler.js";
export { CCompileError, HostBackendUnavailableError } from "./errors.js";
export {
  vectorAddCpu,
  broadcastAddCpu,
  matmulCpu,
  conv2dCpu,
  depthwiseConv2dCpu,
  maxPoolCpu,
  avgPoolCpu,
  batchNormCpu,
  DEFAULT_MATMUL_TILES,
  type ScheduledOperator,
  type MatmulTiles,
  type ConvSize,
  type PoolSize,
  type CpuScheduleOptions,
  type ConvTileOverrides,
} from "./d2l-cpu-schedules.js";
export {
  chooseConvTiles,
  chooseVectorTile,
  largestDivisorAtMost,
  parallelLoopCount,
  worthParallel,
  estimatedMicros,
  hostCores,
  type ConvTiles,
  type ConvShape,
  type Work,
} from "./cpu-schedule-factors.js";

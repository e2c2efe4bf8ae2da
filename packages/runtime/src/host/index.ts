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
} from "./d2l-cpu-schedules.js";

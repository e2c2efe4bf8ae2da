/**
 * @tessera/runtime — the native CUDA runtime: devices, device arrays, CUDA C++ compilation
 * (NVRTC or nvcc, cached), module loading, kernel launch and TVM-style timing; the C target's
 * host modules (host/); and TVM's `build()` driver (driver/), which lowers, generates code and
 * runs it on the GPU, in the GPU simulator (device "sim") or, for a C target, as host code.
 *
 * The addon opens libcuda.so.1 and NVRTC with dlopen, so it builds without a CUDA SDK; where
 * there is no driver, `cuda.available()` is false and `cuda.unavailableReason()` says why.
 */
export { cuda, type DeviceInfo } from "./device.js";
export { deviceTarget } from "./device-target.js";
export { NDArray, scalarBits, type Shape } from "./ndarray.js";
export {
  DTYPES,
  dtypeBytes,
  isDType,
  allocTypedArray,
  float16Bits,
  bfloat16Bits,
  encodeHalfArray,
  decodeHalfArray,
  isHalfDType,
  type HalfDType,
  type DType,
  type AnyTypedArray,
  type TypedArrayFor,
} from "./dtype.js";
export { CudaError, CudaUnavailableError, CompileError } from "./errors.js";
export {
  compileCuda,
  compilerArgs,
  nvrtcStatus,
  nvccStatus,
  ptxText,
  parseArch,
  parsePtxasVerbose,
  CompileCache,
  cacheKey,
  defaultCacheDir,
  nvccVersion,
  type Arch,
  type CacheKeyInput,
  type CompileBackend,
  type CompileOptions,
  type CompiledCuda,
  type PtxasFunctionInfo,
  type PtxasReport,
} from "./compile/index.js";
export {
  CudaModule,
  Kernel,
  BoundLaunch,
  LaunchSequence,
  loadModule,
  launchDims,
  type Dim3Like,
  type KernelAttributes,
  type LaunchConfig,
} from "./launch.js";
export { packArgs, scalar, i32, u32, i64, u64, f32, f64, type KernelArg, type ScalarArg, type PackedArgs, type DevicePointerLike } from "./args.js";
export { encodeTensorMap, isTensorMapArg, type TensorMapArg } from "./tensor-map.js";
export { timeEvaluator, summarize, type BatchTimer, type TimeEvaluatorOptions, type TimingResult, type TimerDeps } from "./timer.js";
export {
  LaunchMetadataSchema,
  KernelParamSchema,
  Dim3Schema,
  parseLaunchMetadata,
  type LaunchMetadata,
  type KernelParam,
  type Dim3,
} from "./launch-metadata.js";
export { loadNative, addonCandidates, type NativeLoad, type NativeHostLibrary } from "./native.js";
export {
  buildHost,
  openHostLibrary,
  type HostModule,
  compileC,
  probeCCompiler,
  type CompiledLibrary,
  CCompileError,
  type HostBuildOptions,
  type HostBuildInput,
  type HostTiming,
  type CCompilerInfo,
  type CompileCOptions,
  HostBackendUnavailableError,
} from "./host/index.js";
export {
  build,
  type BuildInput,
  type BuildDevice,
  type BuildOptions,
  type BuiltModule,
  type ModuleArgument,
  type ModuleTiming,
} from "./driver/build.js";
export { BuildError, ModuleArgumentError } from "./module-args/errors.js";
export type { ParamSpec, BufferParamSpec, ScalarParamSpec } from "./module-args/arguments.js";
export { compileTargetFor, type CompileTarget } from "./driver/compile-target.js";
export { occupancyLimits, theoreticalOccupancy, type OccupancyLimits, type KernelFootprint, type Occupancy } from "./occupancy.js";

export { buildHost, openHostLibrary, type HostModule, type HostBuildOptions, type HostBuildInput, type HostTiming } from "./host-module.js";
export {
  compileC,
  probeCCompiler,
  cFlags,
  cCompilerCommand,
  defaultCCacheDir,
  type CCompilerInfo,
  type CompiledLibrary,
  type CompileCOptions,
} from "./compiler.js";
export { CCompileError, HostBackendUnavailableError } from "./errors.js";

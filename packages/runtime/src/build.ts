/**
 * `build()`: from a PrimFunc, a Schedule or an already lowered module to a callable module, as
 * TVM's `tvm.build` gives a runtime.Module.
 *
 *   const mod = await build(naiveSchedule(2048), "nvidia/h100");
 *   mod(A, B, C, D);                                   // runs every kernel, in launch order
 *   const t = await mod.timeEvaluator({ number: 3, repeat: 10 })(A, B, C, D);
 *
 * Devices: "cuda" compiles the generated CUDA C (NVRTC or nvcc, cached) and launches it; "cpu"
 * runs the same lowered kernels in the simulator, so the same code runs with or without a GPU;
 * "auto" (default) is cuda where `cuda.available()`, else cpu.
 *
 * Arguments, one per parameter of `mod.lowered.source`, in order: on cuda, NDArrays of the
 * parameter's dtype and shape; on cpu, TypedArrays of its element type (Float32Array for float32)
 * and size; scalars are numbers. Anything else throws ModuleArgumentError naming the argument.
 */
import { type CpuTarget, isCpuTarget, isCpuTargetName, codegenCuda, exportHeader, lower, target as resolveTarget, type HeaderOptions, type LaunchMetadata, type LoweredModule, type Target } from "@tessera/codegen";
import type { SimulationOptions, SimulationReport } from "@tessera/simulator";
import { paramSpecs, type ParamSpec } from "./build/arguments.js";
import { compileTargetFor } from "./build/compile-target.js";
import { CpuExecutor } from "./build/cpu-executor.js";
import { CudaExecutor } from "./build/cuda-executor.js";
import { BuildError } from "./build/errors.js";
import type { Executor } from "./build/executor.js";
import type { CompileBackend, CompiledCuda } from "./compile/index.js";
import { cuda, type DeviceInfo } from "./device.js";
import { CudaUnavailableError } from "./errors.js";
import type { KernelAttributes } from "./launch.js";
import { timeEvaluator, type TimeEvaluatorOptions, type TimingResult } from "./timer.js";
import { buildHost, type HostBuildInput, type HostBuildOptions, type HostModule } from "./host/host-module.js";

export { BuildError, ModuleArgumentError } from "./build/errors.js";
export type { ParamSpec, BufferParamSpec, ScalarParamSpec } from "./build/arguments.js";

/** What `lower()` accepts (a PrimFunc or a Schedule), or its result. */
export type BuildInput = Parameters<typeof lower>[0] | LoweredModule;

export type BuildDevice = "cuda" | "cpu";

export interface BuildOptions {
  /** Default "auto": cuda when `cuda.available()`, else cpu. */
  device?: BuildDevice | "auto";
  /** CUDA device ordinal (default 0). */
  deviceOrdinal?: number;
  /** Compiler (default "auto": NVRTC where it loads, else nvcc). */
  backend?: CompileBackend | "auto";
  /** On-disk compile cache directory, or false to compile without it; default the runtime's cache. */
  cacheDir?: string | false;
  /** Simulator options on the cpu device (race detection is on by default). */
  simulation?: SimulationOptions;
}

/** A timing: ms per run of the whole module; `clock` says what was measured. */
export interface ModuleTiming extends TimingResult {
  /** "cuda-events": GPU time between CUDA events; "simulator-wall-clock": CPU time of the simulator (not GPU time). */
  readonly clock: "cuda-events" | "simulator-wall-clock";
  readonly device: BuildDevice;
}

/** A module argument: an NDArray (cuda), a TypedArray (cpu) or a number (scalar parameters). */
export type ModuleArgument = unknown;

export interface BuiltModule {
  /** Runs every kernel once, in launch order. On cuda the launches are asynchronous (NDArray.copyTo waits). */
  (...args: ModuleArgument[]): void;
  readonly device: BuildDevice;
  readonly name: string;
  /** The generated CUDA C. */
  readonly source: string;
  /** Launch metadata of each kernel, in launch order. */
  readonly kernels: readonly LaunchMetadata[];
  readonly lowered: LoweredModule;
  /** What each argument must be (name, dtype, shape). */
  readonly params: readonly ParamSpec[];
  /** The compiled image (cuda only): backend, target, compile time, cache hit. */
  readonly compiled: CompiledCuda | undefined;
  /** The simulator's report of the last run (cpu only). */
  readonly lastSimulation: SimulationReport | undefined;
  /** The C++/CUDA header with the kernels and a host launcher (`exportHeader`). */
  header(options?: HeaderOptions): string;
  /** Registers and static shared memory per kernel as the driver reports them (cuda only; undefined on cpu). */
  attributes(): KernelAttributes[] | undefined;
  /** A timer in TVM's time_evaluator style: call it with the module's arguments. */
  timeEvaluator(options?: TimeEvaluatorOptions): (...args: ModuleArgument[]) => Promise<ModuleTiming>;
  /** Frees workspaces and unloads the CUDA module. Idempotent; the module cannot be called afterwards. */
  dispose(): void;
  readonly disposed: boolean;
}

function isLoweredModule(x: BuildInput): x is LoweredModule {
  return typeof x === "object" && x !== null && "kernels" in x && "workspaces" in x && "source" in x;
}

function pickDevice(wanted: BuildDevice | "auto"): BuildDevice {
  if (wanted === "auto") return cuda.available() ? "cuda" : "cpu";
  if (wanted === "cuda" && !cuda.available())
    throw new CudaUnavailableError('build(device: "cuda")', cuda.unavailableReason() ?? "unknown reason");
  if (wanted !== "cuda" && wanted !== "cpu") throw new BuildError(`build: unknown device "${String(wanted)}" (expected "cuda", "cpu" or "auto")`);
  return wanted;
}

/** `cuda` takes the local GPU's limits when the module will run on it. */
function resolveBuildTarget(t: Target | string, local: DeviceInfo | undefined): Target {
  if (typeof t !== "string") return t;
  if (t === "cuda" && local !== undefined)
    return resolveTarget("cuda", {
      device: {
        name: local.name,
        computeCapability: local.computeCapability,
        multiProcessorCount: local.multiprocessorCount,
        maxThreadsPerBlock: local.maxThreadsPerBlock,
        maxSharedMemoryPerBlock: local.sharedMemPerBlock,
        maxSharedMemoryPerBlockOptin: local.sharedMemPerBlockOptin,
      },
    });
  return resolveTarget(t);
}

function lowerInput(input: BuildInput, t: Target | string | undefined, local: DeviceInfo | undefined): LoweredModule {
  if (isLoweredModule(input)) {
    const name = typeof t === "string" ? t : t?.name;
    if (name !== undefined && name !== input.target.name)
      throw new BuildError(`build: the module was lowered for ${input.target.name}, not ${name}; lower it again or omit the target`);
    return input;
  }
  return lower(input, resolveBuildTarget(t ?? "cuda", local));
}

/** CPU target names (`c`, `llvm`, `llvm -mcpu=…`): build() compiles them to host code. */
export type CpuTargetName = "c" | "llvm" | `c ${string}` | `llvm ${string}`;

/**
 * Lowers (unless given a LoweredModule), generates CUDA C, and on the cuda device compiles and
 * loads it. `target` defaults to "cuda" (the local GPU's limits), or for a LoweredModule to the
 * target it was lowered for.
 *
 * A CPU target (`c`, `llvm`, `llvm -mcpu=NAME`, or a CpuTarget) generates C instead, compiles it
 * with the system C compiler (OpenMP, -O3 -march) and loads it into this process: the result is
 * a HostModule called on host TypedArrays (see host/host-module.ts). A target name only known at
 * run time can be told apart with `isCpuTargetName`.
 */
export async function build(input: HostBuildInput, target: CpuTarget | CpuTargetName, opts?: HostBuildOptions): Promise<HostModule>;
export async function build(input: BuildInput, target?: Target | string, opts?: BuildOptions): Promise<BuiltModule>;
export async function build(
  input: BuildInput | HostBuildInput,
  target?: Target | CpuTarget | string,
  opts: BuildOptions | HostBuildOptions = {},
): Promise<BuiltModule | HostModule> {
  if (isCpuTarget(target) || (typeof target === "string" && isCpuTargetName(target))) {
    if (typeof input === "object" && input !== null && "kernels" in input && "workspaces" in input) {
      throw new BuildError(`build: the module was lowered for the GPU target ${input.target.name}; give the scheduled function to build for ${typeof target === "string" ? target : target.name}`);
    }
    return buildHost(input as HostBuildInput, target, opts as HostBuildOptions);
  }
  return buildDevice(input as BuildInput, target, opts as BuildOptions);
}

async function buildDevice(input: BuildInput, target: Target | string | undefined, opts: BuildOptions): Promise<BuiltModule> {
  const device = pickDevice(opts.device ?? "auto");
  const ordinal = opts.deviceOrdinal ?? 0;
  const local = device === "cuda" ? cuda.device(ordinal) : undefined;
  const lowered = lowerInput(input, target, local);
  if (lowered.kernels.length === 0) throw new BuildError(`build: ${lowered.name} has no device kernels`);
  const generated = codegenCuda(lowered);
  const specs = paramSpecs(lowered);
  const executor: CpuExecutor | CudaExecutor =
    local === undefined
      ? new CpuExecutor(lowered, specs, opts.simulation)
      : await CudaExecutor.create(lowered, specs, {
          source: generated.source,
          metadata: generated.kernels,
          compileTarget: compileTargetFor(lowered.target, local),
          deviceOrdinal: ordinal,
          ...(opts.backend === undefined ? {} : { backend: opts.backend }),
          ...(opts.cacheDir === undefined ? {} : { cacheDir: opts.cacheDir }),
        });
  return makeModule(lowered, generated.source, generated.kernels, specs, executor);
}

function makeModule(
  lowered: LoweredModule,
  source: string,
  kernels: readonly LaunchMetadata[],
  params: readonly ParamSpec[],
  executor: CpuExecutor | CudaExecutor,
): BuiltModule {
  let disposed = false;
  const live = (call: string): Executor => {
    if (disposed) throw new BuildError(`${lowered.name}.${call}: the module was disposed`);
    return executor;
  };
  const call = (...args: ModuleArgument[]): void => live("call").run(args);
  const members = {
    device: executor.device,
    source,
    kernels,
    lowered,
    params,
    header: (options?: HeaderOptions): string => exportHeader(lowered, options),
    attributes: (): KernelAttributes[] | undefined => (executor instanceof CudaExecutor ? executor.attributes() : undefined),
    timeEvaluator:
      (options: TimeEvaluatorOptions = {}) =>
      async (...args: ModuleArgument[]): Promise<ModuleTiming> => {
        const timing = await timeEvaluator(live("timeEvaluator").timer(args), options);
        return { ...timing, clock: executor.device === "cuda" ? "cuda-events" : "simulator-wall-clock", device: executor.device };
      },
    dispose: (): void => {
      if (disposed) return;
      disposed = true;
      executor.dispose();
    },
  };
  const mod = Object.assign(call, members);
  Object.defineProperties(mod, {
    // A function's own `name` is read-only; define it like the other members.
    name: { value: lowered.name, enumerable: true },
    compiled: { get: () => (executor instanceof CudaExecutor ? executor.compiled : undefined), enumerable: true },
    lastSimulation: { get: () => (executor instanceof CpuExecutor ? executor.lastReport : undefined), enumerable: true },
    disposed: { get: () => disposed, enumerable: true },
  });
  return mod as unknown as BuiltModule;
}

/**
 * `build()`: from a PrimFunc, a Schedule or an already lowered module to a callable module, as
 * TVM's `tvm.build` gives a runtime.Module.
 *
 *   const mod = await build(naiveSchedule(2048), "nvidia/h100");
 *   mod(A, B, C, D);                                   // runs every kernel, in launch order
 *   const t = await mod.timeEvaluator({ number: 3, repeat: 10 })(A, B, C, D);
 *
 * Devices, for a CUDA target: "cuda" compiles the generated CUDA C (NVRTC or nvcc, cached) and
 * launches it; "sim" runs the same lowered kernels in the GPU simulator, so the same code runs
 * with or without a GPU; "auto" (default) is cuda where `cuda.available()`, else sim. (The old
 * spelling "cpu" for the simulator is refused with an error naming "sim": native code for the
 * CPU is the C target, `build(sch, "c")`.)
 *
 * Arguments, one per parameter of `mod.lowered.source`, in order: on cuda, NDArrays of the
 * parameter's dtype and shape; on sim, TypedArrays of its element type (Float32Array for float32)
 * and size; scalars are numbers. Anything else throws ModuleArgumentError naming the argument.
 */
import {
  type CTarget,
  type CTargetName,
  type CudaTarget,
  type HeaderOptions,
  type LaunchMetadata,
  type LowerInput,
  type LoweredModule,
  type Target,
  codegenCuda,
  cudaTarget,
  exportHeader,
  isCTarget,
  lower,
  targetKindOf,
} from "@tessera/codegen";
import type { SimulationOptions, SimulationReport } from "@tessera/simulator";
import type { CompileBackend, CompiledCuda } from "../compile/index.js";
import { cuda, type DeviceInfo } from "../device.js";
import { deviceTarget } from "../device-target.js";
import { CudaUnavailableError } from "../errors.js";
import { buildHost, type HostBuildInput, type HostBuildOptions, type HostModule } from "../host/host-module.js";
import type { KernelAttributes } from "../launch.js";
import { paramSpecs, type ParamSpec } from "../module-args/arguments.js";
import { BuildError } from "../module-args/errors.js";
import { timeEvaluator, type TimeEvaluatorOptions, type TimingResult } from "../timer.js";
import { compileTargetFor } from "./compile-target.js";
import { CudaExecutor } from "./cuda-executor.js";
import type { Executor } from "./executor.js";
import { SimExecutor } from "./sim-executor.js";

/** What `lower()` accepts (a PrimFunc or a Schedule), or its result for a CUDA target. */
export type BuildInput = LowerInput | LoweredModule;

/** Where a module built for a CUDA target runs: on the GPU, or in the GPU simulator. */
export type BuildDevice = "cuda" | "sim";

export interface BuildOptions {
  /** Default "auto": cuda when `cuda.available()`, else sim. */
  device?: BuildDevice | "auto";
  /** CUDA device ordinal (default 0). */
  deviceOrdinal?: number;
  /** Compiler (default "auto": NVRTC where it loads, else nvcc). */
  backend?: CompileBackend | "auto";
  /** On-disk compile cache directory, or false to compile without it; default the runtime's cache. */
  cacheDir?: string | false;
  /** Simulator options on the sim device (race detection is on by default). */
  simulation?: SimulationOptions;
}

/** A timing: ms per run of the whole module; `clock` says what was measured. */
export interface ModuleTiming extends TimingResult {
  /** "cuda-events": GPU time between CUDA events; "simulator-wall-clock": CPU time of the simulator (not GPU time). */
  readonly clock: "cuda-events" | "simulator-wall-clock";
  readonly device: BuildDevice;
}

/** A module argument: an NDArray (cuda), a TypedArray (sim) or a number (scalar parameters). */
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
  /** The simulator's report of the last run (sim only). */
  readonly lastSimulation: SimulationReport | undefined;
  /** The C++/CUDA header with the kernels and a host launcher (`exportHeader`). */
  header(options?: HeaderOptions): string;
  /** Registers and static shared memory per kernel as the driver reports them (cuda only; undefined on sim). */
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
  if (wanted === "auto") return cuda.available() ? "cuda" : "sim";
  if (wanted === "cuda" && !cuda.available()) throw new CudaUnavailableError('build(device: "cuda")', cuda.unavailableReason() ?? "unknown reason");
  if ((wanted as string) === "cpu") {
    throw new BuildError(
      'build: device "cpu" is now called "sim" (the GPU simulator); to compile native code for the CPU, build for the C target ("c" or "llvm")',
    );
  }
  if (wanted !== "cuda" && wanted !== "sim") throw new BuildError(`build: unknown device "${String(wanted)}" (expected "cuda", "sim" or "auto")`);
  return wanted;
}

/** `cuda` takes the local GPU's limits when the module will run on it. */
function resolveBuildTarget(t: Target | string, local: DeviceInfo | undefined): CudaTarget {
  if (typeof t !== "string") return cudaTarget(t, undefined, "build() for a GPU device");
  if (t === "cuda" && local !== undefined) return deviceTarget(local);
  return cudaTarget(t, undefined, "build() for a GPU device");
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

/**
 * Lowers (unless given a LoweredModule), generates CUDA C, and on the cuda device compiles and
 * loads it. `target` defaults to "cuda" (the local GPU's limits), or for a LoweredModule to the
 * target it was lowered for.
 *
 * A C target (`c`, `llvm`, `llvm -mcpu=NAME`, or a CTarget) generates C instead, compiles it
 * with the system C compiler (OpenMP, -O3 -march) and loads it into this process: the result is
 * a HostModule called on host TypedArrays (see host/host-module.ts). A target name only known at
 * run time can be told apart with `targetKindOf`.
 */
export async function build(input: HostBuildInput, target: CTarget | CTargetName, opts?: HostBuildOptions): Promise<HostModule>;
export async function build(input: BuildInput, target?: Target | string, opts?: BuildOptions): Promise<BuiltModule>;
export async function build(
  input: BuildInput | HostBuildInput,
  target?: Target | string,
  opts: BuildOptions | HostBuildOptions = {},
): Promise<BuiltModule | HostModule> {
  const kind = typeof target === "string" ? targetKindOf(target) : target?.kind;
  if (kind === "webgpu" || kind === "metal") {
    const how =
      kind === "webgpu"
        ? 'build(func, "webgpu") and loadModule(device, …) of @tessera/webgpu run them'
        : 'codegenMetal(lower(func, "metal")) of @tessera/codegen prints their source';
    throw new BuildError(`build: ${kind} kernels do not run through @tessera/runtime; ${how}`);
  }
  if (isCTarget(target) || (typeof target === "string" && targetKindOf(target) === "c")) {
    if (typeof input === "object" && input !== null && "kernels" in input && "workspaces" in input) {
      throw new BuildError(
        `build: the module was lowered for the GPU target ${input.target.name}; give the scheduled function to build for ${typeof target === "string" ? target : target?.name}`,
      );
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
  const executor: SimExecutor | CudaExecutor =
    local === undefined
      ? new SimExecutor(lowered, specs, opts.simulation)
      : await CudaExecutor.create(lowered, specs, {
          source: generated.source,
          metadata: generated.kernels,
          compileTarget: compileTargetFor(lowered.target, local, generated.requiredArch),
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
  executor: SimExecutor | CudaExecutor,
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
    lastSimulation: { get: () => (executor instanceof SimExecutor ? executor.lastReport : undefined), enumerable: true },
    disposed: { get: () => disposed, enumerable: true },
  });
  return mod as unknown as BuiltModule;
}

/**
 * The cuda device: the generated CUDA C compiled once (compileCuda, cached on disk), loaded on one
 * device, and launched kernel after kernel on the caller's NDArrays. Workspaces are allocated at
 * the first call and kept (reused by later calls, which run in order on the same stream) until
 * `dispose()`.
 */
import type { DeviceKernel, LaunchMetadata, LoweredModule } from "@tessera/codegen";
import { scalar, type KernelArg } from "../args.js";
import { compileCuda, type CompileBackend, type CompiledCuda } from "../compile/index.js";
import { isDType } from "../dtype.js";
import { CudaModule, LaunchSequence, type Kernel, type KernelAttributes } from "../launch.js";
import { NDArray } from "../ndarray.js";
import type { BatchTimer } from "../timer.js";
import { checkCudaArguments, type ParamSpec } from "../module-args/arguments.js";
import type { CompileTarget } from "./compile-target.js";
import { BuildError } from "../module-args/errors.js";
import type { Executor } from "./executor.js";
import { encodeTensorMap } from "../tensor-map.js";

export interface CudaExecutorOptions {
  readonly source: string;
  readonly metadata: readonly LaunchMetadata[];
  readonly compileTarget: CompileTarget;
  readonly deviceOrdinal: number;
  readonly backend?: CompileBackend | "auto";
  /** A cache directory, or false to compile without the on-disk cache; default the runtime's cache. */
  readonly cacheDir?: string | false;
}

export class CudaExecutor implements Executor {
  readonly device = "cuda" as const;
  #workspaces: NDArray[] | undefined;

  private constructor(
    readonly lowered: LoweredModule,
    readonly specs: readonly ParamSpec[],
    readonly compiled: CompiledCuda,
    readonly module: CudaModule,
    readonly kernels: readonly Kernel[],
  ) {}

  static async create(lowered: LoweredModule, specs: readonly ParamSpec[], opts: CudaExecutorOptions): Promise<CudaExecutor> {
    const compiled = await compileCuda(opts.source, {
      arch: opts.compileTarget.arch,
      output: opts.compileTarget.output,
      backend: opts.backend ?? "auto",
      cache: opts.cacheDir ?? true,
      name: `${lowered.name}.cu`,
    });
    const module = new CudaModule(compiled, opts.deviceOrdinal);
    try {
      const kernels = opts.metadata.map((m) => module.getKernel(m.name, m));
      return new CudaExecutor(lowered, specs, compiled, module, kernels);
    } catch (e) {
      module.dispose();
      throw e;
    }
  }

  #workspaceArrays(): NDArray[] {
    if (this.#workspaces === undefined) {
      this.#workspaces = this.lowered.workspaces.map((w) => {
        if (!isDType(w.dtype)) throw new BuildError(`${this.lowered.name}: workspace ${w.name} has dtype ${w.dtype}, which device arrays cannot hold`);
        return NDArray.empty([w.elements], w.dtype, this.module.device);
      });
    }
    return this.#workspaces;
  }

  #kernelArgs(kernel: DeviceKernel, args: readonly (NDArray | number)[], workspaces: readonly NDArray[]): KernelArg[] {
    const params = this.lowered.source.params;
    return kernel.params.flatMap((p): KernelArg[] => {
      if (p.kind === "scalar") {
        let index = params.indexOf(p.var);
        if (index < 0) index = params.findIndex((q) => q.name === p.name && !this.lowered.source.bufferMap.has(q));
        const value = args[index];
        if (typeof value !== "number") throw new BuildError(`kernel ${kernel.name}: no scalar parameter of ${this.lowered.name} provides ${p.name}`);
        if (!isDType(p.dtype)) throw new BuildError(`kernel ${kernel.name}: scalar ${p.name} has unsupported dtype ${p.dtype}`);
        return [scalar(p.dtype, value)];
      }
      const value = p.source.kind === "param" ? args[p.source.index] : workspaces[p.source.index];
      if (!(value instanceof NDArray))
        throw new BuildError(`kernel ${kernel.name}: parameter ${p.name} comes from ${p.source.kind} ${p.source.index}, which is not a buffer`);
      // A TMA-loaded buffer: its tensor map follows the pointer, encoded for this array.
      return p.tensorMap === undefined ? [value] : [value, encodeTensorMap(value.ptr, value.dtype, p.tensorMap, p.name, kernel.name)];
    });
  }

  /** The module's launches bound to `args` (arguments checked, packed once). */
  bind(args: readonly unknown[]): LaunchSequence {
    const checked = checkCudaArguments(this.lowered.name, this.specs, args);
    const workspaces = this.#workspaceArrays();
    return new LaunchSequence(this.lowered.kernels.map((k, i) => (this.kernels[i] as Kernel).bind(undefined, this.#kernelArgs(k, checked, workspaces))));
  }

  run(args: readonly unknown[]): void {
    this.bind(args).run();
  }

  /** CUDA events around a native loop that launches every kernel `number` times. */
  timer(args: readonly unknown[]): BatchTimer {
    return this.bind(args);
  }

  attributes(): KernelAttributes[] {
    return this.kernels.map((k) => k.attributes());
  }

  dispose(): void {
    for (const w of this.#workspaces ?? []) w.dispose();
    this.#workspaces = undefined;
    this.module.dispose();
  }
}

/** Modules (cuModuleLoadData), kernels (cuModuleGetFunction) and launches (cuLaunchKernel). */
import { packArgs, type KernelArg, type PackedArgs } from "./args.js";
import type { CompiledCuda } from "./compile/index.js";
import { requireCuda } from "./device.js";
import { native } from "./errors.js";
import type { LaunchMetadata } from "./launch-metadata.js";
import type { NativeFunctionAttributes, NativeKernelFunction, NativeLaunchSpec, NativeModuleHandle } from "./native.js";
import type { BatchTimer } from "./timer.js";

export type Dim3Like = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

export interface LaunchConfig {
  grid: Dim3Like;
  block: Dim3Like;
  /** Dynamic shared memory in bytes (default 0). Over 48 KiB, the kernel's limit is raised automatically. */
  dynamicSharedBytes?: number;
}

/** What the driver reports about a compiled kernel (registers, static shared memory, limits). */
export type KernelAttributes = NativeFunctionAttributes;

function dim3(d: Dim3Like, what: string): [number, number, number] {
  const a = typeof d === "number" ? [d] : [...d];
  const out: [number, number, number] = [a[0] ?? 1, a[1] ?? 1, a[2] ?? 1];
  for (const x of out) if (!Number.isInteger(x) || x < 1 || x > 0xffffffff) throw new RangeError(`invalid ${what} dimension ${x}`);
  return out;
}

export function launchDims(config: LaunchConfig): Uint32Array {
  const g = dim3(config.grid, "grid");
  const b = dim3(config.block, "block");
  const shared = config.dynamicSharedBytes ?? 0;
  if (!Number.isInteger(shared) || shared < 0) throw new RangeError(`invalid dynamicSharedBytes ${shared}`);
  return Uint32Array.from([...g, ...b, shared]);
}

/** A loaded CUBIN or PTX image. */
export class CudaModule {
  #handle: NativeModuleHandle | undefined;
  readonly device: number;

  constructor(image: Uint8Array | CompiledCuda, device = 0) {
    const addon = requireCuda("loadModule");
    const bytes = image instanceof Uint8Array ? image : image.image;
    this.device = device;
    this.#handle = native(() => new addon.NativeModule(device, bytes));
  }

  /** Looks up an `extern "C"` kernel. With `metadata`, launches use its grid/block/shared size and parameter types. */
  getKernel(name: string, metadata?: LaunchMetadata): Kernel {
    requireCuda("CudaModule.getKernel");
    const h = this.#handle;
    if (h === undefined) throw new Error(`getKernel('${name}'): module was disposed`);
    if (metadata !== undefined && metadata.name !== name) throw new RangeError(`getKernel('${name}'): metadata is for '${metadata.name}'`);
    return new Kernel(
      native(() => h.getFunction(name)),
      this,
      metadata,
    );
  }

  /** Unloads the module (its kernels can no longer be launched). Idempotent. */
  dispose(): void {
    const h = this.#handle;
    this.#handle = undefined;
    if (h !== undefined) native(() => h.unload());
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

export function loadModule(image: Uint8Array | CompiledCuda, device = 0): CudaModule {
  return new CudaModule(image, device);
}

export class Kernel {
  constructor(
    readonly fn: NativeKernelFunction,
    readonly module: CudaModule,
    readonly metadata?: LaunchMetadata,
  ) {}

  get name(): string {
    return this.fn.name;
  }

  /** Registers, static shared / local / constant memory, as the driver reports them. */
  attributes(): KernelAttributes {
    return native(() => this.fn.attributes());
  }

  #config(config: LaunchConfig | undefined): LaunchConfig {
    if (config !== undefined) return config;
    const m = this.metadata;
    if (m === undefined) throw new Error(`kernel '${this.name}': no launch config given and no metadata`);
    return { grid: m.grid, block: m.block, dynamicSharedBytes: m.dynamicSharedBytes };
  }

  /** Prepares a launch (arguments packed once) that can run or be timed repeatedly. */
  bind(config: LaunchConfig | undefined, args: readonly KernelArg[]): BoundLaunch {
    requireCuda(`Kernel.bind(${this.name})`);
    const dims = launchDims(this.#config(config));
    return new BoundLaunch(this, dims, packArgs(args, this.metadata?.params, this.name), args);
  }

  /** Launches asynchronously; errors of the launch itself are thrown here, errors while it runs at the next synchronizing call. */
  launch(config: LaunchConfig | undefined, args: readonly KernelArg[]): void {
    requireCuda(`Kernel.launch(${this.name})`);
    this.bind(config, args).run();
  }
}

export class BoundLaunch implements BatchTimer {
  constructor(
    readonly kernel: Kernel,
    readonly dims: Uint32Array,
    readonly packed: PackedArgs,
    /** Kept so that the arrays outlive the launch. */
    readonly args: readonly KernelArg[],
  ) {}

  spec(): NativeLaunchSpec {
    return [this.kernel.fn, this.dims, this.packed.bytes, this.packed.offsets];
  }

  run(): void {
    const addon = requireCuda(`Kernel.launch(${this.kernel.name})`);
    native(() => addon.launch(this.kernel.fn, this.dims, this.packed.bytes, this.packed.offsets));
  }

  warmup(): void {
    this.timeBatch(1);
  }

  /** Runs `number` times in a native loop between two CUDA events; returns the total ms. */
  timeBatch(number: number): number {
    const addon = requireCuda(`timeEvaluator(${this.kernel.name})`);
    return native(() => addon.timeLaunches([this.spec()], number));
  }
}

/** Several launches timed as one unit (each run launches all of them, in order). */
export class LaunchSequence implements BatchTimer {
  constructor(readonly launches: readonly BoundLaunch[]) {
    if (launches.length === 0) throw new RangeError("LaunchSequence: no launches");
  }

  run(): void {
    for (const l of this.launches) l.run();
  }

  warmup(): void {
    this.timeBatch(1);
  }

  timeBatch(number: number): number {
    const addon = requireCuda("timeEvaluator(sequence)");
    return native(() =>
      addon.timeLaunches(
        this.launches.map((l) => l.spec()),
        number,
      ),
    );
  }
}

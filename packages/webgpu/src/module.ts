/// <reference types="@webgpu/types" />
/**
 * A WGSL module loaded onto a `GPUDevice`: its pipelines compiled, its kernels checked against
 * the device's limits. Written against the standard WebGPU API only, so the same code runs in a
 * browser (`navigator.gpu`) and in Node (`@tessera/webgpu/node`).
 *
 *   const mod = await loadModule(device, build(func, "webgpu"));
 *   await mod.run([a, b, c]);                 // upload, dispatch every kernel, download into c
 *   const t = await mod.time([a, b, c]);      // { medianMs, method: "timestamp-query" | "cpu" }
 */
import { type WgslKernel, type WgslModule, webGpuTargetFromLimits, wgslLimitViolations } from "@tessera/codegen";
import { type HostArg, type HostArray, checkBufferArg, scalarBytes } from "./args.js";
import { WebGpuRuntimeError } from "./errors.js";
import { type TimingOptions, type TimingResult, timeDispatches } from "./timing.js";
import { BufferUsage, MapMode } from "./usage.js";

/** Buffers of one call on the device: arguments (by parameter index) and workspaces. */
export interface DeviceArgs {
  readonly params: ReadonlyMap<number, GPUBuffer>;
  readonly workspaces: readonly GPUBuffer[];
  readonly bindGroups: readonly GPUBindGroup[];
  readonly host: readonly HostArg[];
}

interface LoadedKernel {
  readonly kernel: WgslKernel;
  readonly pipeline: GPUComputePipeline;
}

/** Bytes rounded up to WebGPU's 4-byte copy granularity (and at least 4). */
function paddedBytes(n: number): number {
  return Math.max(4, Math.ceil(n / 4) * 4);
}

/** A buffer's size: whole vec4s, since a kernel may view its array as `array<vec4<f32>>`. */
function bufferBytes(n: number): number {
  return Math.max(16, Math.ceil(n / 16) * 16);
}

export class WebGpuModule {
  private readonly paramIndex: ReadonlyMap<string, number>;

  constructor(
    readonly device: GPUDevice,
    readonly module: WgslModule,
    private readonly kernels: readonly LoadedKernel[],
  ) {
    this.paramIndex = new Map(module.params.map((p, i) => [p.name, i]));
  }

  private checkArity(args: readonly HostArg[]): void {
    if (args.length !== this.module.params.length) {
      const names = this.module.params.map((p) => p.name).join(", ");
      throw new WebGpuRuntimeError(`${this.module.name} takes ${this.module.params.length} arguments (${names}), got ${args.length}`);
    }
  }

  /** Uploads `args` (typed arrays for buffers, numbers for scalars, in parameter order). */
  upload(args: readonly HostArg[]): DeviceArgs {
    const params = new Map<number, GPUBuffer>();
    const bufferOf = (index: number, where: string, dtype: Parameters<typeof checkBufferArg>[1]): GPUBuffer => {
      const known = params.get(index);
      if (known !== undefined) return known;
      const host = checkBufferArg(args[index], dtype, where);
      const buffer = this.device.createBuffer({ size: bufferBytes(host.byteLength), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC });
      writeBuffer(this.device, buffer, host);
      params.set(index, buffer);
      return buffer;
    };
    const workspaces = this.module.workspaces.map((w) =>
      this.device.createBuffer({ size: bufferBytes(w.elements * 4), usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC }),
    );
    const bindGroups = this.kernels.map(({ kernel, pipeline }) => {
      const entries: GPUBindGroupEntry[] = kernel.bindings.map((b) => {
        if (b.kind === "uniform") {
          const bytes = scalarBytes(kernel, args, this.paramIndex)!;
          const buffer = this.device.createBuffer({ size: bytes.byteLength, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
          this.device.queue.writeBuffer(buffer, 0, bytes);
          return { binding: b.binding, resource: { buffer } };
        }
        const where = `kernel ${kernel.name}: argument ${b.name}`;
        const buffer = b.source.kind === "param" ? bufferOf(b.source.index, where, b.dtype) : workspaces[b.source.index]!;
        return { binding: b.binding, resource: { buffer } };
      });
      return this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    });
    return { params, workspaces, bindGroups, host: args };
  }

  /** Records every kernel's dispatch, one compute pass each (`passTimestamps` adds timestamp writes). */
  encode(encoder: GPUCommandEncoder, args: DeviceArgs, passTimestamps?: (i: number) => GPUComputePassTimestampWrites | undefined): void {
    this.kernels.forEach(({ kernel, pipeline }, i) => {
      const timestampWrites = passTimestamps?.(i);
      const pass = encoder.beginComputePass(timestampWrites === undefined ? {} : { timestampWrites });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, args.bindGroups[i]!);
      pass.dispatchWorkgroups(kernel.grid[0], kernel.grid[1], kernel.grid[2]);
      pass.end();
    });
  }

  /** Dispatches every kernel once and waits for the device to finish. */
  async launch(args: DeviceArgs): Promise<void> {
    const encoder = this.device.createCommandEncoder();
    this.encode(encoder, args);
    this.device.queue.submit([encoder.finish()]);
    await this.device.queue.onSubmittedWorkDone();
  }

  /** Copies every buffer argument back into its host array. */
  async download(args: DeviceArgs): Promise<void> {
    await Promise.all([...args.params].map(([index, buffer]) => readBuffer(this.device, buffer, args.host[index] as HostArray)));
  }

  /** Upload, dispatch, download: the host arrays of `args` hold the results afterwards. */
  async run(args: readonly HostArg[]): Promise<void> {
    this.checkArity(args);
    const device = this.upload(args);
    try {
      await this.launch(device);
      await this.download(device);
    } finally {
      release(device);
    }
  }

  /** Times the dispatches on uploaded `args` (timestamp queries where the device has them, else CPU time; the result says which). */
  async time(args: readonly HostArg[], opts: TimingOptions = {}): Promise<TimingResult> {
    this.checkArity(args);
    const device = this.upload(args);
    try {
      return await timeDispatches(this.device, (encoder, stamps) => this.encode(encoder, device, stamps), this.kernels.length, opts);
    } finally {
      release(device);
    }
  }
}

function release(args: DeviceArgs): void {
  for (const b of args.params.values()) b.destroy();
  for (const b of args.workspaces) b.destroy();
}

function writeBuffer(device: GPUDevice, buffer: GPUBuffer, host: HostArray): void {
  const whole = host.byteLength % 4 === 0 ? host : new Uint8Array(paddedBytes(host.byteLength));
  if (whole !== host) (whole as Uint8Array).set(new Uint8Array(host.buffer, host.byteOffset, host.byteLength));
  device.queue.writeBuffer(buffer, 0, whole.buffer, whole.byteOffset, paddedBytes(host.byteLength));
}

async function readBuffer(device: GPUDevice, buffer: GPUBuffer, host: HostArray): Promise<void> {
  const size = paddedBytes(host.byteLength);
  const staging = device.createBuffer({ size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(MapMode.READ);
  new Uint8Array(host.buffer, host.byteOffset, host.byteLength).set(new Uint8Array(staging.getMappedRange(), 0, host.byteLength));
  staging.unmap();
  staging.destroy();
}

/**
 * Compiles every kernel of `module` on `device`, after checking them against the device's limits
 * (an error names each limit exceeded).
 */
export async function loadModule(device: GPUDevice, module: WgslModule): Promise<WebGpuModule> {
  const limits = webGpuTargetFromLimits(device.limits, device.features.has("shader-f16"));
  for (const kernel of module.kernels) {
    const violations = wgslLimitViolations(kernel, limits);
    if (violations.length > 0) throw new WebGpuRuntimeError(`kernel ${kernel.name} does not fit this device: ${violations.join("; ")}`);
  }
  const kernels: LoadedKernel[] = [];
  for (const kernel of module.kernels) {
    device.pushErrorScope("validation");
    const shader = device.createShaderModule({ code: kernel.source });
    const info = await shader.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === "error");
    const pipeline = device.createComputePipeline({ layout: "auto", compute: { module: shader, entryPoint: kernel.name } });
    const scopeError = await device.popErrorScope();
    if (errors.length > 0 || scopeError !== null) {
      const detail = errors.length > 0 ? errors.map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`).join("; ") : scopeError!.message;
      throw new WebGpuRuntimeError(`the device refused the WGSL of kernel ${kernel.name}: ${detail}`);
    }
    kernels.push({ kernel, pipeline });
  }
  return new WebGpuModule(device, module, kernels);
}

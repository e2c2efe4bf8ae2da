/**
 * Targets whose kernels are shader source for a non-CUDA GPU API: WebGPU (WGSL) and Metal (MSL),
 * as TVM names them (`webgpu`, `metal`, `apple/m1-gpu`, …). They share the GPU lowering with
 * CUDA; their limits are those of the API (WebGPU's `GPUSupportedLimits` defaults, Metal's
 * per-threadgroup limits). Limits can be raised with TVM's options (`webgpu
 * -max_num_threads=1024 -max_shared_memory_per_block=32768`) or, at run time, from an adapter.
 */
import { TargetError } from "./errors.js";
import type { TargetString } from "./target-string.js";

interface GpuSourceLimits {
  /** Threads of one workgroup/threadgroup in total (WebGPU's maxComputeInvocationsPerWorkgroup). */
  readonly maxThreadsPerBlock: number;
  /** Per-dimension workgroup size (maxComputeWorkgroupSizeX/Y/Z). */
  readonly maxBlockDim: readonly [number, number, number];
  /** Per-dimension workgroup count (maxComputeWorkgroupsPerDimension). */
  readonly maxGridDim: readonly [number, number, number];
  /** Workgroup (threadgroup) memory per workgroup, in bytes (maxComputeWorkgroupStorageSize). */
  readonly maxSharedMemoryPerBlock: number;
  /** Storage buffers one kernel may bind (maxStorageBuffersPerShaderStage; Metal: buffer slots). */
  readonly maxStorageBuffers: number;
  /** Widest vector access in bytes (16: `vec4<f32>`, `float4`). */
  readonly maxVectorBytes: number;
}

export interface WebGpuTarget extends GpuSourceLimits {
  /** The name the target was created from (`webgpu`, `webgpu -max_num_threads=1024`). */
  readonly name: string;
  readonly kind: "webgpu";
  /** Whether kernels may use f16 (`enable f16;`): only when the adapter has `shader-f16`. */
  readonly shaderF16: boolean;
}

export interface MetalTarget extends GpuSourceLimits {
  /** The name the target was created from (`metal`, `apple/m1-gpu`). */
  readonly name: string;
  readonly kind: "metal";
  /** SIMD-group width (TVM's thread_warp_size for Metal: 32 on Apple GPUs). */
  readonly warpSize: number;
}

/** WebGPU's default limits (the WebGPU specification's "Limits" table): every adapter has at least these. */
const WEBGPU_DEFAULT: GpuSourceLimits = {
  maxThreadsPerBlock: 256,
  maxBlockDim: [256, 256, 64],
  maxGridDim: [65535, 65535, 65535],
  maxSharedMemoryPerBlock: 16384,
  maxStorageBuffers: 8,
  maxVectorBytes: 16,
};

/** Metal's limits on Apple GPUs (Metal feature set tables): 1024 threads, 32 KiB threadgroup memory, 31 buffers. */
const METAL_DEFAULT: GpuSourceLimits = {
  maxThreadsPerBlock: 1024,
  maxBlockDim: [1024, 1024, 1024],
  maxGridDim: [2147483647, 65535, 65535],
  maxSharedMemoryPerBlock: 32768,
  maxStorageBuffers: 31,
  maxVectorBytes: 16,
};

export const WEBGPU_TARGET_NAMES: readonly string[] = ["webgpu"];
export const METAL_TARGET_NAMES: readonly string[] = ["metal", "apple/m1-gpu", "apple/m2-gpu"];

/** Options both kinds take, TVM's spelling. */
const NUMBER_OPTIONS = ["max_num_threads", "max_threads_per_block", "max_shared_memory_per_block"] as const;

function withOptions<T extends GpuSourceLimits & { readonly name: string }>(spec: TargetString, base: T, extra: readonly string[]): T {
  let out: T = spec.options.length === 0 ? base : { ...base, name: spec.text };
  for (const [key, value] of spec.options) {
    if (extra.includes(key)) continue;
    if (!(NUMBER_OPTIONS as readonly string[]).includes(key)) {
      const known = [...NUMBER_OPTIONS, ...extra].map((k) => `-${k}`).join(", ");
      throw new TargetError(`target "${spec.text}": unknown option -${key} (known: ${known})`);
    }
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1) throw new TargetError(`target "${spec.text}": -${key} must be a positive integer, got ${value}`);
    if (key === "max_shared_memory_per_block") out = { ...out, maxSharedMemoryPerBlock: n };
    else out = { ...out, maxThreadsPerBlock: n, maxBlockDim: [Math.max(out.maxBlockDim[0], n), Math.max(out.maxBlockDim[1], n), out.maxBlockDim[2]] };
  }
  return out;
}

/** Resolves `webgpu` with options (`-max_num_threads=N`, `-max_shared_memory_per_block=N`, `-supports_float16=1`). */
export function resolveWebGpuTarget(spec: TargetString): WebGpuTarget {
  if (!WEBGPU_TARGET_NAMES.includes(spec.head)) throw new TargetError(`unknown WebGPU target "${spec.text}"; the WebGPU target is "webgpu"`);
  const f16 = spec.options.find(([k]) => k === "supports_float16")?.[1];
  if (f16 !== undefined && f16 !== "0" && f16 !== "1" && f16 !== "true" && f16 !== "false") {
    throw new TargetError(`target "${spec.text}": -supports_float16 must be 0/1 or true/false, got ${f16}`);
  }
  const base: WebGpuTarget = { name: "webgpu", kind: "webgpu", shaderF16: f16 === "1" || f16 === "true", ...WEBGPU_DEFAULT };
  return withOptions(spec, base, ["supports_float16"]);
}

/** Resolves `metal`, `apple/m1-gpu`, `apple/m2-gpu` with options (`-max_num_threads=N`, …). */
export function resolveMetalTarget(spec: TargetString): MetalTarget {
  if (!METAL_TARGET_NAMES.includes(spec.head)) {
    throw new TargetError(`unknown Metal target "${spec.text}"; Metal targets: ${METAL_TARGET_NAMES.join(", ")}`);
  }
  const base: MetalTarget = { name: spec.head, kind: "metal", warpSize: 32, ...METAL_DEFAULT };
  return withOptions(spec, base, []);
}

/** WebGPU's limit names, as an adapter's `GPUSupportedLimits` has them. */
export interface AdapterLimits {
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupSizeX: number;
  readonly maxComputeWorkgroupSizeY: number;
  readonly maxComputeWorkgroupSizeZ: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxComputeWorkgroupStorageSize: number;
  readonly maxStorageBuffersPerShaderStage: number;
}

/** The `webgpu` target with an adapter's (or device's) limits instead of WebGPU's defaults. */
export function webGpuTargetFromLimits(limits: AdapterLimits, shaderF16 = false): WebGpuTarget {
  const perDim = limits.maxComputeWorkgroupsPerDimension;
  return {
    name: "webgpu",
    kind: "webgpu",
    shaderF16,
    maxThreadsPerBlock: limits.maxComputeInvocationsPerWorkgroup,
    maxBlockDim: [limits.maxComputeWorkgroupSizeX, limits.maxComputeWorkgroupSizeY, limits.maxComputeWorkgroupSizeZ],
    maxGridDim: [perDim, perDim, perDim],
    maxSharedMemoryPerBlock: limits.maxComputeWorkgroupStorageSize,
    maxStorageBuffers: limits.maxStorageBuffersPerShaderStage,
    maxVectorBytes: 16,
  };
}

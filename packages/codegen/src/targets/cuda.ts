/**
 * CUDA targets: a GPU architecture and the limits the generated kernels must respect.
 * Named targets describe real GPUs (TVM's `nvidia/tesla-t4`, …); `cuda` takes its limits from the
 * local device when one is given, and any limit can be overridden as in TVM's target dictionaries
 * or with the options of a target string (`cuda -arch=sm_90 -max_threads_per_block=512`).
 */
import { z } from "zod";
import { TargetError } from "./errors.js";
import type { TargetString } from "./target-string.js";

export interface CudaTarget {
  /** The name the target was created from, e.g. `nvidia/tesla-t4`. */
  readonly name: string;
  readonly kind: "cuda";
  /** Streaming-multiprocessor architecture, e.g. `sm_75`. */
  readonly arch: string;
  /** Human-readable device model. */
  readonly model: string;
  readonly maxThreadsPerBlock: number;
  /**
   * Resident threads per SM (CUDA's maxThreadsPerMultiProcessor), where the architecture is
   * known: bounds `__launch_bounds__(threads, minBlocks)` (threads × minBlocks must fit).
   */
  readonly maxThreadsPerMultiProcessor?: number | undefined;
  /** Per-dimension block limits (x, y, z). */
  readonly maxBlockDim: readonly [number, number, number];
  /** Per-dimension grid limits (x, y, z). */
  readonly maxGridDim: readonly [number, number, number];
  /** Static shared memory per block, in bytes. */
  readonly maxSharedMemoryPerBlock: number;
  /**
   * Shared memory per block, static plus dynamic (`shared.dyn`), that a kernel may opt into
   * (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, which the runtime raises for launches above
   * 48 KiB); undefined: `maxSharedMemoryPerBlock`.
   */
  readonly maxSharedMemoryPerBlockOptin?: number | undefined;
  readonly multiProcessorCount: number;
  readonly warpSize: number;
  /** Widest vector access in bytes (16: `float4`). */
  readonly maxVectorBytes: number;
  /** Registers per thread the code generator may assume. */
  readonly maxRegistersPerThread: number;
}

const BLOCK_DIM = [1024, 1024, 64] as const;
const GRID_DIM = [2147483647, 65535, 65535] as const;

/** Resident threads per SM by architecture (CUDA programming guide, compute capabilities table). */
const THREADS_PER_SM: Readonly<Record<string, number>> = {
  sm_60: 2048,
  sm_61: 2048,
  sm_62: 2048,
  sm_70: 2048,
  sm_72: 2048,
  sm_75: 1024,
  sm_80: 2048,
  sm_86: 1536,
  sm_87: 2048,
  sm_89: 1536,
  sm_90: 2048,
  sm_90a: 2048,
  sm_100: 2048,
  sm_100a: 2048,
  sm_120: 1536,
};

/** Resident threads per SM of `arch` (`sm_80`), or undefined for an architecture not in the table. */
export function threadsPerMultiProcessor(arch: string): number | undefined {
  return THREADS_PER_SM[arch];
}

function gpu(name: string, model: string, arch: string, sms: number, optinKiB?: number, sharedKiB = 48): CudaTarget {
  return {
    name,
    kind: "cuda",
    arch,
    model,
    maxThreadsPerBlock: 1024,
    maxThreadsPerMultiProcessor: threadsPerMultiProcessor(arch),
    maxBlockDim: BLOCK_DIM,
    maxGridDim: GRID_DIM,
    maxSharedMemoryPerBlock: sharedKiB * 1024,
    maxSharedMemoryPerBlockOptin: optinKiB === undefined ? undefined : optinKiB * 1024,
    multiProcessorCount: sms,
    warpSize: 32,
    maxVectorBytes: 16,
    maxRegistersPerThread: 255,
  };
}

/** Static shared memory is limited to 48 KiB per block on every architecture (more needs dynamic shared memory). */
const NAMED_TARGETS: Readonly<Record<string, CudaTarget>> = {
  // Opt-in shared memory per block: CUDA programming guide, technical specifications per compute capability.
  "nvidia/tesla-t4": gpu("nvidia/tesla-t4", "Tesla T4", "sm_75", 40, 64),
  "nvidia/a100": gpu("nvidia/a100", "A100", "sm_80", 108, 163),
  "nvidia/h100": gpu("nvidia/h100", "H100 SXM", "sm_90", 132, 227),
  "nvidia/h200": gpu("nvidia/h200", "H200", "sm_90", 132, 227),
};

/** The CUDA target names: the named GPUs and `cuda`. */
export const CUDA_TARGET_NAMES: readonly string[] = [...Object.keys(NAMED_TARGETS), "cuda"];

/** What a local device reports; the runtime's `DeviceInfo` has these fields. */
export interface LocalDeviceLimits {
  readonly name: string;
  readonly computeCapability: readonly [number, number] | string;
  readonly multiProcessorCount: number;
  readonly maxThreadsPerBlock: number;
  readonly maxSharedMemoryPerBlock: number;
  /** What a block may opt into (the runtime's `sharedMemPerBlockOptin`). */
  readonly maxSharedMemoryPerBlockOptin?: number;
}

/** Limits that may be overridden, with TVM's spelling of the keys. */
export const TargetOverridesSchema = z
  .object({
    max_shared_memory_per_block: z.number().int().positive(),
    max_threads_per_block: z.number().int().positive(),
    arch: z.string().regex(/^sm_\d+[a-z]?$/, "an architecture such as sm_75"),
    max_num_threads: z.number().int().positive(),
  })
  .partial()
  .strict();

export type TargetOverrides = z.infer<typeof TargetOverridesSchema>;

export interface TargetOptions {
  /** Limits of the local device, used by the `cuda` target. */
  readonly device?: LocalDeviceLimits;
  readonly overrides?: TargetOverrides;
}

function fromDevice(device: LocalDeviceLimits): CudaTarget {
  const cc = typeof device.computeCapability === "string" ? device.computeCapability.replace(".", "") : device.computeCapability.join("");
  return {
    ...gpu("cuda", device.name, `sm_${cc}`, device.multiProcessorCount),
    maxThreadsPerBlock: device.maxThreadsPerBlock,
    maxSharedMemoryPerBlock: Math.min(device.maxSharedMemoryPerBlock, 48 * 1024),
    maxSharedMemoryPerBlockOptin: device.maxSharedMemoryPerBlockOptin,
  };
}

/** The override keys a target string may set, and whether their values are numbers. */
const OPTION_IS_NUMBER: Readonly<Record<keyof TargetOverrides, boolean>> = {
  arch: false,
  max_threads_per_block: true,
  max_num_threads: true,
  max_shared_memory_per_block: true,
};

function overridesOf(spec: TargetString): TargetOverrides {
  const overrides: Record<string, string | number> = {};
  for (const [key, value] of spec.options) {
    if (!Object.hasOwn(OPTION_IS_NUMBER, key)) {
      const known = Object.keys(OPTION_IS_NUMBER)
        .map((k) => `-${k}`)
        .join(", ");
      throw new TargetError(`CUDA target "${spec.text}": unknown option -${key} (known: ${known})`);
    }
    const isNumber = OPTION_IS_NUMBER[key as keyof TargetOverrides];
    overrides[key] = isNumber && /^\d+$/.test(value) ? Number(value) : value;
  }
  return overrides;
}

/**
 * Resolves a parsed CUDA target string: a named GPU (`nvidia/tesla-t4`, `nvidia/a100`,
 * `nvidia/h100`, `nvidia/h200`) or `cuda`, with options, then `opts.overrides`, applied on top.
 * `cuda` without a device gets conservative limits (48 KiB shared, 1024 threads, sm_75).
 */
export function resolveCudaTarget(spec: TargetString, opts: TargetOptions = {}): CudaTarget {
  let base: CudaTarget;
  if (spec.head === "cuda") base = opts.device ? fromDevice(opts.device) : { ...gpu("cuda", "generic CUDA GPU", "sm_75", 1) };
  else {
    const named = NAMED_TARGETS[spec.head];
    if (named === undefined) {
      throw new TargetError(`unknown CUDA target "${spec.head}"; known CUDA targets: ${CUDA_TARGET_NAMES.join(", ")}`);
    }
    base = named;
  }
  const overrides = { ...overridesOf(spec), ...opts.overrides };
  const named = spec.options.length === 0 ? base : { ...base, name: spec.text };
  if (Object.keys(overrides).length === 0) return named;
  const parsed = TargetOverridesSchema.safeParse(overrides);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new TargetError(`target ${spec.text}: invalid overrides: ${issues}`);
  }
  const o = parsed.data;
  const threads = o.max_threads_per_block ?? o.max_num_threads;
  return {
    ...named,
    ...(o.arch === undefined ? {} : { arch: o.arch, maxThreadsPerMultiProcessor: threadsPerMultiProcessor(o.arch) }),
    ...(threads === undefined ? {} : { maxThreadsPerBlock: threads }),
    ...(o.max_shared_memory_per_block === undefined ? {} : { maxSharedMemoryPerBlock: o.max_shared_memory_per_block }),
  };
}

/** `sm_75` → 75. */
export function archNumber(t: CudaTarget): number {
  return Number(t.arch.replace(/^sm_/, "").replace(/[a-z]$/, ""));
}

/** `cp.async` (asynchronous global → shared copies) exists from sm_80 (Ampere) on. */
export function supportsAsyncCopy(t: CudaTarget): boolean {
  return archNumber(t) >= 80;
}

/** Why a kernel with asynchronous copies cannot run on `t`. */
export function asyncCopyUnsupported(t: CudaTarget): string {
  return `cp.async needs sm_80 or newer; target ${t.name} is ${t.arch}; drop software_pipeline_async_stages`;
}

/** CUDA availability and devices. */
import { CudaUnavailableError, native } from "./errors.js";
import { loadNative, type NativeAddon, type NativeDeviceInfo } from "./native.js";

export interface DeviceInfo {
  ordinal: number;
  name: string;
  /** e.g. [9, 0] */
  computeCapability: [number, number];
  /** e.g. "sm_90" */
  arch: string;
  multiprocessorCount: number;
  maxThreadsPerBlock: number;
  maxThreadsPerMultiprocessor: number;
  warpSize: number;
  maxBlockDim: [number, number, number];
  maxGridDim: [number, number, number];
  /** Shared memory a block gets without opting in (48 KiB). */
  sharedMemPerBlock: number;
  /** Shared memory a block may get after raising CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. */
  sharedMemPerBlockOptin: number;
  sharedMemPerMultiprocessor: number;
  registersPerBlock: number;
  registersPerMultiprocessor: number;
  l2CacheBytes: number;
  clockRateKHz: number;
  memoryClockRateKHz: number;
  memoryBusWidthBits: number;
  totalMemoryBytes: number;
}

interface Availability {
  ok: boolean;
  reason: string | undefined;
  driverVersion: number | undefined;
  addon: NativeAddon | undefined;
}

let availability: Availability | undefined;

function probe(): Availability {
  if (availability !== undefined) return availability;
  const load = loadNative();
  if (!load.ok) {
    availability = { ok: false, reason: load.reason, driverVersion: undefined, addon: undefined };
    return availability;
  }
  const p = load.addon.probe();
  availability = {
    ok: p.ok,
    reason: p.ok ? undefined : p.reason,
    driverVersion: p.driverVersion,
    addon: load.addon,
  };
  return availability;
}

/** The loaded addon when CUDA is usable; otherwise throws CudaUnavailableError naming `call`. */
export function requireCuda(call: string): NativeAddon {
  const a = probe();
  if (!a.ok || a.addon === undefined) throw new CudaUnavailableError(call, a.reason ?? "unknown reason");
  return a.addon;
}

/** The addon when it loaded (CUDA may still be unavailable), else undefined. */
export function nativeAddon(): NativeAddon | undefined {
  return probe().addon;
}

function toDeviceInfo(n: NativeDeviceInfo): DeviceInfo {
  return {
    ordinal: n.ordinal,
    name: n.name,
    computeCapability: [n.computeCapabilityMajor, n.computeCapabilityMinor],
    arch: `sm_${n.computeCapabilityMajor}${n.computeCapabilityMinor}`,
    multiprocessorCount: n.multiprocessorCount,
    maxThreadsPerBlock: n.maxThreadsPerBlock,
    maxThreadsPerMultiprocessor: n.maxThreadsPerMultiprocessor,
    warpSize: n.warpSize,
    maxBlockDim: n.maxBlockDim,
    maxGridDim: n.maxGridDim,
    sharedMemPerBlock: n.sharedMemPerBlock,
    sharedMemPerBlockOptin: n.sharedMemPerBlockOptin,
    sharedMemPerMultiprocessor: n.sharedMemPerMultiprocessor,
    registersPerBlock: n.registersPerBlock,
    registersPerMultiprocessor: n.registersPerMultiprocessor,
    l2CacheBytes: n.l2CacheBytes,
    clockRateKHz: n.clockRateKHz,
    memoryClockRateKHz: n.memoryClockRateKHz,
    memoryBusWidthBits: n.memoryBusWidthBits,
    totalMemoryBytes: n.totalMemoryBytes,
  };
}

const deviceCache = new Map<number, DeviceInfo>();

/**
 * The CUDA entry point. Informational calls (`available`, `unavailableReason`, `driverVersion`,
 * `deviceCount`) never throw; everything that needs a GPU throws `CudaUnavailableError` naming
 * the call when there is none.
 */
export const cuda = {
  /** True when the addon loaded, libcuda.so.1 loaded, cuInit succeeded and there is a device. */
  available(): boolean {
    return probe().ok;
  },
  /** Why CUDA is unavailable (undefined when it is available). */
  unavailableReason(): string | undefined {
    return probe().reason;
  },
  /** The driver's CUDA version as the driver reports it, e.g. 13000; undefined without a driver. */
  driverVersion(): number | undefined {
    return probe().driverVersion;
  },
  /** Driver version as "13.0". */
  driverVersionString(): string | undefined {
    const v = probe().driverVersion;
    return v === undefined ? undefined : `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
  },
  /** Number of CUDA devices; 0 where CUDA is unavailable. */
  deviceCount(): number {
    const a = probe();
    if (!a.ok || a.addon === undefined) return 0;
    const addon = a.addon;
    return native(() => addon.deviceCount());
  },
  /** Properties of device `ordinal` (default 0). */
  device(ordinal = 0): DeviceInfo {
    const addon = requireCuda("cuda.device");
    let info = deviceCache.get(ordinal);
    if (info === undefined) {
      info = toDeviceInfo(native(() => addon.deviceInfo(ordinal)));
      deviceCache.set(ordinal, info);
    }
    return info;
  },
  /** Properties of every device. */
  devices(): DeviceInfo[] {
    requireCuda("cuda.devices");
    const n = cuda.deviceCount();
    return Array.from({ length: n }, (_, i) => cuda.device(i));
  },
  /** Free and total device memory in bytes. */
  memInfo(ordinal = 0): { free: number; total: number } {
    const addon = requireCuda("cuda.memInfo");
    return native(() => addon.memInfo(ordinal));
  },
  /** Waits for all work on the device; reports asynchronous kernel errors as CudaError. */
  synchronize(ordinal = 0): void {
    const addon = requireCuda("cuda.synchronize");
    native(() => addon.synchronize(ordinal));
  },
  /** Live device allocations made through this runtime (count and bytes), for leak checks. */
  liveAllocations(): { count: number; bytes: number } {
    const addon = requireCuda("cuda.liveAllocations");
    return addon.liveAllocations();
  },
};

/**
 * Theoretical occupancy of a kernel (the CUDA occupancy calculator's rule): how many blocks of it
 * fit on one multiprocessor, limited by threads, registers, shared memory and the block limit, and
 * the resulting fraction of the multiprocessor's warp slots in use.
 */
export interface OccupancyLimits {
  readonly maxThreadsPerMultiprocessor: number;
  readonly registersPerMultiprocessor: number;
  readonly sharedMemPerMultiprocessor: number;
  readonly warpSize: number;
  /** Resident blocks per multiprocessor: 16 on sm_75, 32 on sm_80 and sm_90. */
  readonly maxBlocksPerMultiprocessor: number;
  /** Registers are allocated per warp in units of this many (256 on sm_50 and newer). */
  readonly registerAllocationUnit: number;
  /** Shared memory the system reserves per block (1 KiB from sm_80 on, 0 before). */
  readonly reservedSharedPerBlock: number;
}

export interface KernelFootprint {
  readonly threadsPerBlock: number;
  readonly registersPerThread: number;
  /** Static plus dynamic shared memory per block. */
  readonly sharedBytesPerBlock: number;
}

export interface Occupancy {
  readonly blocksPerMultiprocessor: number;
  /** Active warps over the multiprocessor's warp slots, in [0, 1]. */
  readonly fraction: number;
  /** What limits the block count first. */
  readonly limitedBy: "threads" | "registers" | "shared memory" | "blocks";
}

/** The occupancy-relevant limits of an architecture `sm_XY` with the device's own sizes. */
export function occupancyLimits(
  arch: string,
  device: { maxThreadsPerMultiprocessor: number; registersPerMultiprocessor: number; sharedMemPerMultiprocessor: number; warpSize: number },
): OccupancyLimits {
  const sm = Number(/^sm_(\d+)/.exec(arch)?.[1] ?? "0");
  return {
    ...device,
    maxBlocksPerMultiprocessor: sm >= 80 ? 32 : 16,
    registerAllocationUnit: 256,
    reservedSharedPerBlock: sm >= 80 ? 1024 : 0,
  };
}

export function theoreticalOccupancy(k: KernelFootprint, lim: OccupancyLimits): Occupancy {
  const warps = Math.ceil(k.threadsPerBlock / lim.warpSize);
  const regsPerWarp = Math.ceil((Math.max(k.registersPerThread, 1) * lim.warpSize) / lim.registerAllocationUnit) * lim.registerAllocationUnit;
  const candidates: [Occupancy["limitedBy"], number][] = [
    ["threads", Math.floor(lim.maxThreadsPerMultiprocessor / (warps * lim.warpSize))],
    ["registers", Math.floor(Math.floor(lim.registersPerMultiprocessor / regsPerWarp) / warps)],
    [
      "shared memory",
      k.sharedBytesPerBlock === 0 ? Infinity : Math.floor(lim.sharedMemPerMultiprocessor / (k.sharedBytesPerBlock + lim.reservedSharedPerBlock)),
    ],
    ["blocks", lim.maxBlocksPerMultiprocessor],
  ];
  const [limitedBy, blocks] = candidates.reduce((best, c) => (c[1] < best[1] ? c : best));
  const slots = lim.maxThreadsPerMultiprocessor / lim.warpSize;
  return { blocksPerMultiprocessor: blocks, fraction: (blocks * warps) / slots, limitedBy };
}

/**
 * How a thread's registers bound the blocks an NVIDIA SM holds, as the hardware allocates them
 * (CUDA's occupancy calculator, cuda_occupancy.h, sm_50 and later): the register file is split
 * evenly among the SM's four sub-partitions (one per warp scheduler), and a warp's registers,
 * rounded up to 256, all come from one of them. So a sub-partition holds
 * floor((registersPerSM / 4) / perWarp) warps and the SM four times that — fewer than
 * registersPerSM / (registers × threads) blocks whenever a block's warps do not divide evenly
 * (10 warps of 200 registers fit 64 000 of 65 536 registers, yet only 8 fit the sub-partitions).
 *
 * ptxas follows the same rule for `__launch_bounds__(threads, minBlocks)`: it caps a thread's
 * registers at the most that still let minBlocks blocks fit (checked against ptxas of CUDA 13 for
 * sm_90 on a kernel that wants 254 registers, for 32–512 threads and 1–16 blocks:
 * test/space-gpu/register-occupancy.test.ts). (64, 5) gives 168, not 65 536 / 320 = 204.
 */

/** Register-file sub-partitions of an SM (one per warp scheduler). */
export const REGISTER_SUB_PARTITIONS = 4;
/** Registers a warp is given at a time. */
export const WARP_REGISTER_UNIT = 256;
/** Registers a thread may have. */
export const MAX_REGISTERS_PER_THREAD = 255;

const WARP = 32;

/** Blocks of `threadsPerBlock` threads using `registersPerThread` registers each that the registers of an SM hold (0: not one). */
export function blocksPerSMByRegisters(registersPerThread: number, threadsPerBlock: number, registersPerSM: number): number {
  const perThread = Math.min(MAX_REGISTERS_PER_THREAD, Math.max(1, registersPerThread));
  const perWarp = Math.ceil((perThread * WARP) / WARP_REGISTER_UNIT) * WARP_REGISTER_UNIT;
  const warpsPerSubPartition = Math.floor(registersPerSM / REGISTER_SUB_PARTITIONS / perWarp);
  return Math.floor((warpsPerSubPartition * REGISTER_SUB_PARTITIONS) / Math.ceil(threadsPerBlock / WARP));
}

/**
 * The most registers a thread may have (a multiple of 8, at most 255) so that `minBlocks` blocks of
 * `threadsPerBlock` threads fit an SM's registers: ptxas's cap under
 * `__launch_bounds__(threadsPerBlock, minBlocks)`.
 */
export function registerCapForMinBlocks(threadsPerBlock: number, minBlocks: number, registersPerSM: number): number {
  const warpsPerSubPartition = Math.ceil((Math.max(1, minBlocks) * Math.ceil(threadsPerBlock / WARP)) / REGISTER_SUB_PARTITIONS);
  const cap = Math.floor(registersPerSM / REGISTER_SUB_PARTITIONS / (warpsPerSubPartition * WARP) / 8) * 8;
  return Math.min(MAX_REGISTERS_PER_THREAD, cap);
}

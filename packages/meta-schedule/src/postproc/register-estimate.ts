/**
 * Registers a thread of a kernel needs, estimated on the scheduled TensorIR (before lowering), so
 * that a postprocessor can derive `__launch_bounds__` from them instead of sampling it blindly:
 * a base for indices and pointers plus the elements of the kernel's register buffers, as the
 * feature extractor lays them out (store-analysis/buffer-layout.ts: each buffer compacted to what one
 * thread touches in one allocation, one copy per virtual thread and per pipeline version) — the
 * same count the analytic latency model takes from the lowered kernel.
 */
import type { PrimFunc, Stmt } from "@tessera/ir";
import { bufferLayouts } from "../store-analysis/buffer-layout.js";
import { collectStoreSites } from "../store-analysis/store-sites.js";
import { blocksPerSMByRegisters } from "../support/register-occupancy.js";

/** Registers a thread needs besides its local buffers (indices, pointers, loop counters). */
export const BASE_REGISTERS = 16;
/** 32-bit registers of an SM: 64 Ki on every NVIDIA architecture from sm_50 to sm_90. */
export const REGISTERS_PER_SM = 65536;

/** Elements of register (local) buffers one thread holds in the kernel rooted at `kernelRoot` (a statement of `func`). */
export function localElementsPerThread(func: PrimFunc, kernelRoot: Stmt = func.body): number {
  const layouts = bufferLayouts(collectStoreSites({ ...func, body: kernelRoot }));
  let elements = 0;
  for (const layout of layouts.values()) if (layout.allocated && layout.buffer.scope === "local") elements += layout.elements * layout.versions;
  return elements;
}

/** Registers per thread: the base plus the local elements. */
export function registersPerThread(func: PrimFunc, kernelRoot: Stmt = func.body): number {
  return BASE_REGISTERS + localElementsPerThread(func, kernelRoot);
}

/**
 * The largest number of blocks of `threads` threads that fit an SM's `registersPerSM` at the
 * estimated registers (at most 255; the sub-partitions' rule, support/register-occupancy.ts),
 * within `maxThreadsPerSM` when known; at least 1.
 */
export function blocksPerSMForRegisters(registers: number, threads: number, registersPerSM: number, maxThreadsPerSM: number | undefined): number {
  const byRegisters = blocksPerSMByRegisters(registers, threads, registersPerSM);
  const byThreads = maxThreadsPerSM === undefined ? Infinity : Math.floor(maxThreadsPerSM / threads);
  return Math.max(1, Math.min(byRegisters, byThreads));
}

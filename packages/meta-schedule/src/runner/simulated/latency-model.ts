/**
 * An analytic latency ESTIMATE of a lowered module on a GPU — not a measurement. Per kernel:
 *   - occupancy: resident blocks per SM, limited by threads, shared memory, registers (local
 *     buffers + a base, capped by __launch_bounds__) and the architecture's block limit;
 *   - per warp, the cycles each SM resource needs: FP32 pipes (fp32 lanes / 32 instructions per
 *     cycle), instruction issue (one per scheduler per cycle), shared memory (one wavefront per
 *     cycle, bank conflicts included), L1 (one 128-byte line per cycle: uncoalesced accesses
 *     touch many lines); the busiest resource bounds the warp;
 *   - the busiest SM runs ⌈blocks / SMs⌉ blocks; too few resident warps × independent
 *     accumulators to hide latency slow it down proportionally;
 *   - DRAM: the bytes of every global buffer touched, once, over the device bandwidth;
 *   - the kernel takes a launch overhead plus the larger of the SM time and the DRAM time.
 * Good enough to rank schedules of one workload (naive < manual < fast gemm), not to predict
 * absolute times.
 */
import type { LoweredModule, Target } from "@tessera/codegen";
import { type GpuSpec, gpuSpecOf } from "./gpu-spec.js";
import { type KernelProfile, profileKernel } from "./kernel-profile.js";

export type LatencyBound = "fp32" | "issue" | "shared" | "global" | "dram" | "launch";

export interface KernelEstimate {
  readonly name: string;
  readonly seconds: number;
  /** What limits the kernel. */
  readonly bound: LatencyBound;
  readonly blocksPerSM: number;
  readonly registersPerThread: number;
  /** Resident warps per SM over the architecture's maximum. */
  readonly occupancy: number;
  readonly profile: KernelProfile;
}

export interface LatencyEstimate {
  /** Seconds per run of the whole module (every kernel, in order). */
  readonly seconds: number;
  readonly kernels: readonly KernelEstimate[];
}

/** Registers a thread needs besides its local buffers (indices, pointers, loop counters). */
const BASE_REGISTERS = 16;
/** Independent instructions in flight per scheduler needed to hide pipeline latency. */
const LATENCY_HIDING = 8;

function registersPerThread(p: KernelProfile, spec: GpuSpec): number {
  let regs = Math.min(255, BASE_REGISTERS + p.localElements);
  if (p.minBlocksPerSM !== undefined) regs = Math.min(regs, Math.floor(spec.registersPerSM / (p.minBlocksPerSM * p.threadsPerBlock)));
  return Math.max(BASE_REGISTERS, regs);
}

export function estimateKernel(p: KernelProfile, spec: GpuSpec): Omit<KernelEstimate, "name" | "profile"> {
  const warpsPerBlock = Math.ceil(p.threadsPerBlock / 32);
  const regs = registersPerThread(p, spec);
  const allocatedRegs = Math.ceil(regs / 8) * 8 * warpsPerBlock * 32;
  const blocksPerSM = Math.max(
    1,
    Math.min(
      spec.maxBlocksPerSM,
      Math.floor(spec.maxThreadsPerSM / (warpsPerBlock * 32)),
      p.sharedBytes > 0 ? Math.floor(spec.sharedBytesPerSM / p.sharedBytes) : Infinity,
      Math.floor(spec.registersPerSM / allocatedRegs),
    ),
  );
  const perWarp: Record<"fp32" | "issue" | "shared" | "global", number> = {
    fp32: p.fpInstructions / (spec.fp32LanesPerSM / 32),
    issue: (p.fpInstructions + p.memoryInstructions) / spec.schedulersPerSM,
    shared: p.sharedWavefronts,
    global: p.globalLines,
  };
  let bound: LatencyBound = "fp32";
  for (const k of ["issue", "shared", "global"] as const) if (perWarp[k] > perWarp[bound as keyof typeof perWarp]) bound = k;
  const blocksOnBusiestSM = Math.ceil(p.blocks / spec.smCount);
  const residentWarpsPerScheduler = (Math.min(blocksPerSM, blocksOnBusiestSM) * warpsPerBlock) / spec.schedulersPerSM;
  const efficiency = Math.min(1, (residentWarpsPerScheduler * Math.min(Math.max(1, p.largestLocalBuffer), LATENCY_HIDING)) / LATENCY_HIDING);
  const smSeconds = (blocksOnBusiestSM * warpsPerBlock * perWarp[bound as keyof typeof perWarp]) / efficiency / spec.clockHz;
  const dramSeconds = p.globalFootprintBytes / spec.dramBytesPerSec;
  if (dramSeconds > smSeconds) bound = "dram";
  const busy = Math.max(smSeconds, dramSeconds);
  if (spec.launchSec > busy) bound = "launch";
  return {
    seconds: spec.launchSec + busy,
    bound,
    blocksPerSM,
    registersPerThread: regs,
    occupancy: Math.min(1, (blocksPerSM * warpsPerBlock * 32) / spec.maxThreadsPerSM),
  };
}

/** The estimated time of one run of `module` on `target` (default: the target it was lowered for). */
export function estimateLatency(module: LoweredModule, target: Target = module.target): LatencyEstimate {
  const spec = gpuSpecOf(target);
  const kernels = module.kernels.map((k): KernelEstimate => {
    const profile = profileKernel(k);
    return { name: k.name, profile, ...estimateKernel(profile, spec) };
  });
  return { seconds: kernels.reduce((s, k) => s + k.seconds, 0), kernels };
}

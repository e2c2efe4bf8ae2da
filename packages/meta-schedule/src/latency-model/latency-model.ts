/**
 * An analytic latency ESTIMATE of a lowered module on a GPU, not a measurement: per kernel, registers,
 * occupancy, per-warp resource cycles, global-load rounds, waves and DRAM (docs/architecture/meta-schedule-notes.md).
 */
import type { LoweredModule, CudaTarget } from "@tessera/codegen";
import { type GpuSpec, gpuSpecOf } from "./gpu-spec.js";
import { type KernelProfile, profileKernel } from "./kernel-profile.js";
import { MAX_REGISTERS_PER_THREAD, blocksPerSMByRegisters, registerCapForMinBlocks } from "../support/register-occupancy.js";

export type LatencyBound = "fp32" | "issue" | "shared" | "global" | "latency" | "dram" | "launch";

export interface KernelEstimate {
  readonly name: string;
  readonly seconds: number;
  /** What limits the kernel. */
  readonly bound: LatencyBound;
  readonly blocksPerSM: number;
  readonly registersPerThread: number;
  /** Registers a thread needs that its budget cannot hold (spilled to local memory). */
  readonly spilledRegisters: number;
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
/**
 * SM cycles a round of global loads costs a warp that did not prefetch them: the load latency
 * under load plus the barrier that follows. Fitted, with the other constants, on the H100
 * measurements named above (1000–4000 rank about as well; below 1000 the rounds stop mattering).
 */
const GLOBAL_LOAD_LATENCY = 3000;
/** Slow-down per spilled fraction of the registers a thread needs (local-memory traffic in the inner loop). */
const SPILL_COST = 2;
/**
 * Slow-down of a kernel whose FP work per round is not straight-line code — less than half of it
 * in one iteration of a rolled loop: loop overhead, and address arithmetic that unrolled code folds
 * into immediate offsets. Fitted on the recorded 256-trial runs (docs/benchmarks/tuning-gemm-256.md):
 * without it the model could not tell an unroll budget of 512 from 2048, which the H200 measured
 * 1.29× against 1.14× on the same tiles; 0.08 raises the rank correlation there from 0.48 to 0.60
 * (mean of 22 runs) — 0.15 and 0.25 no further, and lower on the H100 fixture.
 */
const ROLLED_STEP_COST = 0.08;
/**
 * The order of the norm by which a warp's issue slots and shared-memory wavefronts add up; ∞ (the
 * default): the busier alone, as if the other hid behind it completely. They do not overlap
 * completely — a shared load waits in the memory pipe's queue while the FP instructions that need
 * its value stall — and order 3 ranked the 4,099 programs of the recorded H200 gemm+ReLU+add
 * 2048³ runs better (Spearman with measured speed 0.48 → 0.54; of the model's 50 favourites 18
 * within 1.10× of cuBLAS instead of none). Off all the same: those programs are the ones the max
 * chose to measure, and on the H200 the search with order 3 met the 64-trial target on 3 of 6 new
 * seeds (order 6: 1 of 6) against the max's 5 of 6; on the programs order 3 picked there it ranked
 * worse than the max (Spearman 0.41 against 0.49), and on the H100 fixture
 * (cost-model/h100-ranking.test.ts) it fell under that test's 0.5 (0.49)
 * (docs/benchmarks/tuning-2026-11-30-s20). `EstimateOptions` keeps it for offline studies.
 */
export const SHARED_OVERLAP_ORDER = Infinity;

/**
 * Whether a warp's global lines count as wavefronts of the shared-memory data path too (beyond
 * TVM, whose features do not model it). Since Volta, L1 and shared memory are one SRAM behind one
 * data path, and each 128-byte line a warp's global access touches is one wavefront of it. A
 * cooperative fetch whose lanes read along the rows of a tile and one whose lanes read down its
 * columns bring the same lines into L1 over the fetch, so their DRAM and L2 traffic is the same,
 * but the column-wise fetch takes 8 times the wavefronts from the inner loop's shared loads; on
 * the H200, pairs of gemm+ReLU+add 2048³ programs differing only in that measured up to 1.43×
 * apart, which the model without it estimated equal. With it, the rank correlation with measured
 * speed rose from 0.616 to 0.688 on 46 recorded runs (bench:prior-ranking) and from 0.437 to
 * 0.536 on sessions 19–22's 91 (bench:prior-switches), and on 14 paired unseen seeds at 64
 * trials on the H200 the search met ≤ 1.10× cuBLAS on 12 against 9, mean 1.076× against 1.105×
 * (docs/benchmarks/tuning-2026-12-01-s23).
 */
export const L1_SHARES_DATA_PATH = true;

/**
 * SM cycles each barrier costs a block alone on its SM (beyond TVM, whose features do not model
 * it); 0, none, by default. At a barrier a block's warps wait for its last one, and after it the
 * first shared loads' latency is exposed before any FP work issues; a second resident block's
 * warps issue meanwhile. On the recorded H200 gemm+ReLU+add 2048³ programs the model's 700
 * favourites are all one-block kernels (128 blocks of 256 threads), 22% of which measured within
 * 1.10× cuBLAS; with 100 cycles a barrier its 700 favourites are two-block kernels, 51% of them
 * within 1.10×, and its top 8 of each recorded run came within 1.019× of the run's best program
 * instead of 1.040× (sessions 19–22's 91 runs; 1.016× against 1.036× on session 23's runs of
 * this model; bench:prior-switches). Off all the same: on the H200, paired on 7 unseen seeds at
 * 64 trials, the search with it met ≤ 1.10× cuBLAS on 4 against 5, mean 1.091× against 1.084×;
 * its misses were seeds whose search never reached the programs it favours (none of their 64
 * picks within 1% of its best estimate), and with four first-round islands to reach them it
 * met 5 of 6 against 3 of 6 paired, then 2 of 5 unpaired (docs/benchmarks/tuning-2026-12-01-s24).
 * `EstimateOptions.loneBlockBarrierCycles` keeps it for offline studies.
 */
export const LONE_BLOCK_BARRIER_CYCLES = 0;

/** What `estimateKernel` may be told besides the kernel and the GPU. */
export interface EstimateOptions {
  /** The order of the norm adding a warp's issue time and shared wavefronts (≥ 1; default `SHARED_OVERLAP_ORDER`). */
  readonly sharedOverlapOrder?: number;
  /** Whether global accesses' lines count as wavefronts of the shared-memory data path (default `L1_SHARES_DATA_PATH`). */
  readonly l1SharesDataPath?: boolean;
  /** SM cycles of each barrier of a block alone on its SM (default `LONE_BLOCK_BARRIER_CYCLES`; 0: none). */
  readonly loneBlockBarrierCycles?: number;
}

/** The L^order norm of two non-negative costs (order ∞: the larger). */
export function overlapNorm(a: number, b: number, order: number): number {
  if (!(order >= 1)) throw new RangeError(`overlapNorm: order must be at least 1, got ${order}`);
  if (order === Infinity) return Math.max(a, b);
  const top = Math.max(a, b);
  if (top === 0) return 0;
  return top * ((a / top) ** order + (b / top) ** order) ** (1 / order);
}

/** Registers per thread, and how many of those it needs do not fit. */
function registerUse(p: KernelProfile, spec: GpuSpec): { regs: number; spilled: number } {
  const need = BASE_REGISTERS + p.localElements;
  const m = p.minBlocksPerSM;
  // Under __launch_bounds__(threads, m) ptxas gives a thread the most registers that let m blocks fit the SM's sub-partitions.
  const budget = m === undefined ? MAX_REGISTERS_PER_THREAD : registerCapForMinBlocks(p.threadsPerBlock, m, spec.registersPerSM);
  const regs = Math.max(BASE_REGISTERS, m === undefined ? Math.min(need, budget) : budget);
  return { regs, spilled: Math.max(0, need - budget) };
}

export function estimateKernel(p: KernelProfile, spec: GpuSpec, options: EstimateOptions = {}): Omit<KernelEstimate, "name" | "profile"> {
  const warpsPerBlock = Math.ceil(p.threadsPerBlock / 32);
  const { regs, spilled } = registerUse(p, spec);
  const blocksPerSM = Math.max(
    1,
    Math.min(
      spec.maxBlocksPerSM,
      Math.floor(spec.maxThreadsPerSM / (warpsPerBlock * 32)),
      p.sharedBytes > 0 ? Math.floor(spec.sharedBytesPerSM / p.sharedBytes) : Infinity,
      blocksPerSMByRegisters(regs, p.threadsPerBlock, spec.registersPerSM),
    ),
  );
  // "fp32" is the arithmetic pipes: FP32 instructions and tensor-core work (an SM runs either at its rate).
  const perWarp: Record<"fp32" | "issue" | "shared" | "global", number> = {
    fp32: p.fpInstructions / (spec.fp32LanesPerSM / 32) + p.tensorFlops / spec.tensorFlopsPerSM,
    issue: (p.fpInstructions + p.tensorInstructions + p.memoryInstructions) / spec.schedulersPerSM,
    // Shared memory and L1 are one SRAM with one data path: a global access's lines are wavefronts
    // of that path too, so an uncoalesced fetch competes with the shared loads of the inner loop.
    shared: p.sharedWavefronts + ((options.l1SharesDataPath ?? L1_SHARES_DATA_PATH) ? p.globalLines : 0),
    global: p.globalLines,
  };
  let bound: LatencyBound = "fp32";
  for (const k of ["issue", "shared", "global"] as const) if (perWarp[k] > perWarp[bound as keyof typeof perWarp]) bound = k;
  // The data path busy mostly with global lines: the loads' coalescing is what to fix, not the banks.
  if (bound === "shared" && p.globalLines > p.sharedWavefronts && perWarp.shared > p.sharedWavefronts) bound = "global";
  const blocksOnBusiestSM = Math.ceil(p.blocks / spec.smCount);
  const resident = Math.min(blocksPerSM, blocksOnBusiestSM);
  const waves = Math.ceil(blocksOnBusiestSM / resident);
  const rounds = Math.max(1, p.fetchRounds);
  // Per round: the resident warps' work on the busiest resource (the arithmetic pipes or issue slots
  // and the shared wavefronts adding up, SHARED_OVERLAP_ORDER), against one warp's own issue time
  // (one instruction per cycle) plus the wait for loads it did not prefetch.
  const pipes = overlapNorm(Math.max(perWarp.fp32, perWarp.issue), perWarp.shared, options.sharedOverlapOrder ?? SHARED_OVERLAP_ORDER);
  const work = (resident * warpsPerBlock * Math.max(pipes, perWarp.global)) / rounds;
  const alone = (p.fpInstructions + p.tensorInstructions + p.memoryInstructions) / rounds + GLOBAL_LOAD_LATENCY * (1 - p.prefetchedShare);
  if (alone > work) bound = "latency";
  // A block alone on its SM leaves it idle at each of its barriers; another resident block hides them.
  const barrierStall = resident === 1 ? ((options.loneBlockBarrierCycles ?? LONE_BLOCK_BARRIER_CYCLES) * p.barriers) / rounds : 0;
  const spillFactor = 1 + (SPILL_COST * spilled) / (BASE_REGISTERS + p.localElements);
  const rolledFactor = p.straightLineFp < (0.5 * p.fpInstructions) / rounds ? 1 + ROLLED_STEP_COST : 1;
  const smSeconds = (waves * rounds * (Math.max(work, alone) + barrierStall) * spillFactor * rolledFactor) / spec.clockHz;
  const dramSeconds = p.globalFootprintBytes / spec.dramBytesPerSec;
  if (dramSeconds > smSeconds) bound = "dram";
  const busy = Math.max(smSeconds, dramSeconds);
  if (spec.launchSec > busy) bound = "launch";
  return {
    seconds: spec.launchSec + busy,
    bound,
    blocksPerSM,
    registersPerThread: regs,
    spilledRegisters: spilled,
    occupancy: Math.min(1, (blocksPerSM * warpsPerBlock * 32) / spec.maxThreadsPerSM),
  };
}

/** The estimated time of one run of `module` on `target` (default: the target it was lowered for). */
export function estimateLatency(module: LoweredModule, target: CudaTarget = module.target): LatencyEstimate {
  const spec = gpuSpecOf(target);
  const kernels = module.kernels.map((k): KernelEstimate => {
    const profile = profileKernel(k);
    return { name: k.name, profile, ...estimateKernel(profile, spec) };
  });
  return { seconds: kernels.reduce((s, k) => s + k.seconds, 0), kernels };
}

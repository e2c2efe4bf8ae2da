/**
 * Whether a loop nest's work pays for an OpenMP parallel region on a machine: the rule the d2l CPU
 * hand schedules (@tessera/corpus/d2l-cpu) and the tuned CPU space (@tessera/meta-schedule's
 * RewriteParallelVectorizeUnroll) share. A region costs a fork and a join, tens of µs on an idle
 * 2-core machine and far more under load, so it must save several times that.
 */
import { DEFAULT_MACHINE, type MachineProfile, machineProfile } from "./profile.js";

/** Rough single-core throughput of vectorized code (AVX2/AVX-512 FMA), for work estimates only. */
export const CORE_FLOPS_PER_US = 100_000;
/** Rough single-core memory throughput of a streaming loop (beyond L2), for work estimates only. */
export const CORE_BYTES_PER_US = 10_000;
/** A parallel region must save this many times its cost (it costs far more on a loaded machine). */
export const PARALLEL_PAYOFF = 4;

/** What one run of a loop nest does: floating-point operations and bytes moved. */
export interface Work {
  readonly flops: number;
  readonly bytes: number;
}

/**
 * The machine a schedule is sized for: this one (probed) when the core count is not given; for an
 * explicit count (another machine, or a test pinning a decision), the reference machine's costs.
 */
export function machineFor(cores?: number): MachineProfile {
  return cores === undefined ? machineProfile() : { ...DEFAULT_MACHINE, cores };
}

/** Estimated single-core time of `work`: the larger of its compute time and its memory time. */
export function estimatedMicros(work: Work): number {
  return Math.max(work.flops / CORE_FLOPS_PER_US, work.bytes / CORE_BYTES_PER_US);
}

/**
 * How many times over splitting `work` across the cores pays for a parallel region: the estimated
 * time saved over PARALLEL_PAYOFF region costs (0 on one core). At 1 or more the rule says parallel.
 */
export function parallelPayoffMargin(work: Work, cores?: number, machine: MachineProfile = machineFor(cores)): number {
  const n = cores ?? machine.cores;
  if (n < 2) return 0;
  const saved = estimatedMicros(work) * (1 - 1 / n);
  return saved / (PARALLEL_PAYOFF * machine.parallelRegionUs);
}

/** Whether splitting `work` over the cores saves enough time to pay for a parallel region (machineFor). */
export function worthParallel(work: Work, cores?: number, machine: MachineProfile = machineFor(cores)): boolean {
  return parallelPayoffMargin(work, cores, machine) >= 1;
}

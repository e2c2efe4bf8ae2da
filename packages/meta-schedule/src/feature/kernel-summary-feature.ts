/**
 * Kernel-summary features (beyond TVM): one short row per candidate, read off the analytic latency
 * model's profile of its dominant kernel (why not per-store rows: docs/architecture/meta-schedule-notes.md).
 */
import type { CudaTarget } from "@tessera/codegen";
import type { KernelEstimate, LatencyBound, LatencyEstimate } from "../latency-model/latency-model.js";
import { gpuSpecOf } from "../latency-model/gpu-spec.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";
import type { FeatureExtractor, FeatureMatrix } from "../interfaces/feature-extractor.js";
import { latencyEstimateOf } from "./latency-estimate-of.js";

const BOUNDS: readonly LatencyBound[] = ["fp32", "issue", "shared", "global", "latency", "dram", "launch"];

/** The numeric columns, then one flag per limiting resource (`bound_fp32`, …). */
const NUMERIC_FEATURES = [
  "log2_estimate_us",
  "kernels",
  "log2_threads_per_block",
  "log2_blocks",
  /** Blocks over the blocks the GPU holds at once, and how full the last wave is. */
  "waves",
  "last_wave_fill",
  "shared_kib_per_block",
  "registers_per_thread",
  "spilled_registers",
  "blocks_per_sm",
  "occupancy",
  /** `__launch_bounds__` minimum blocks per SM, 0 without. */
  "min_blocks_per_sm",
  "log2_fp_instructions_per_thread",
  "flops_per_fp_instruction",
  "memory_instructions_per_fp",
  "global_lines_per_fp",
  "shared_wavefronts_per_fp",
  /** Shared-memory wavefronts over those without bank conflicts. */
  "bank_conflict_factor",
  "barriers_per_kilo_fp",
  "local_elements",
  "largest_local_buffer",
  "log2_fetch_rounds",
  "prefetched_share",
  "log2_straight_line_fp",
] as const;

export const KERNEL_SUMMARY_FEATURES: readonly string[] = [...NUMERIC_FEATURES, ...BOUNDS.map((b) => `bound_${b}`)];

export const KERNEL_SUMMARY_FEATURE_LENGTH = KERNEL_SUMMARY_FEATURES.length;

/** The kernel-summary row of a module's latency estimate on `target`. */
export function kernelSummaryRow(estimate: LatencyEstimate, target: CudaTarget): Float64Array {
  const row = new Float64Array(KERNEL_SUMMARY_FEATURE_LENGTH);
  const k = dominantKernel(estimate.kernels);
  if (k === undefined) return row;
  const p = k.profile;
  const fp = Math.max(1, p.fpInstructions);
  const waves = p.blocks / (gpuSpecOf(target).smCount * Math.max(1, k.blocksPerSM));
  const values: Record<(typeof NUMERIC_FEATURES)[number], number> = {
    log2_estimate_us: Math.log2(Math.max(1e-3, estimate.seconds * 1e6)),
    kernels: estimate.kernels.length,
    log2_threads_per_block: Math.log2(Math.max(1, p.threadsPerBlock)),
    log2_blocks: Math.log2(Math.max(1, p.blocks)),
    waves,
    last_wave_fill: waves / Math.max(1, Math.ceil(waves)),
    shared_kib_per_block: p.sharedBytes / 1024,
    registers_per_thread: k.registersPerThread,
    spilled_registers: k.spilledRegisters,
    blocks_per_sm: k.blocksPerSM,
    occupancy: k.occupancy,
    min_blocks_per_sm: p.minBlocksPerSM ?? 0,
    log2_fp_instructions_per_thread: Math.log2(fp),
    flops_per_fp_instruction: p.flops / fp,
    memory_instructions_per_fp: p.memoryInstructions / fp,
    global_lines_per_fp: p.globalLines / fp,
    shared_wavefronts_per_fp: p.sharedWavefronts / fp,
    bank_conflict_factor: p.idealSharedWavefronts > 0 ? p.sharedWavefronts / p.idealSharedWavefronts : 1,
    barriers_per_kilo_fp: (1000 * p.barriers) / fp,
    local_elements: p.localElements,
    largest_local_buffer: p.largestLocalBuffer,
    log2_fetch_rounds: Math.log2(Math.max(1, p.fetchRounds)),
    prefetched_share: p.prefetchedShare,
    log2_straight_line_fp: Math.log2(Math.max(1, p.straightLineFp)),
  };
  NUMERIC_FEATURES.forEach((name, c) => {
    const v = values[name];
    row[c] = Number.isFinite(v) ? v : 0;
  });
  row[NUMERIC_FEATURES.length + BOUNDS.indexOf(k.bound)] = 1;
  return row;
}

function dominantKernel(kernels: readonly KernelEstimate[]): KernelEstimate | undefined {
  let best: KernelEstimate | undefined;
  for (const k of kernels) if (best === undefined || k.seconds > best.seconds) best = k;
  return best;
}

export class KernelSummaryFeature implements FeatureExtractor {
  readonly name = "kernel-summary";
  readonly featureLength = KERNEL_SUMMARY_FEATURE_LENGTH;

  extractFrom(ctx: TuneContext, candidates: readonly MeasureCandidate[]): FeatureMatrix[] {
    return candidates.map((c) => {
      const estimate = latencyEstimateOf(c, ctx);
      return [estimate === undefined || ctx.target.kind !== "cuda" ? new Float64Array(KERNEL_SUMMARY_FEATURE_LENGTH) : kernelSummaryRow(estimate, ctx.target)];
    });
  }
}

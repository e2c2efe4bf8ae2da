/**
 * The hardware numbers the analytic latency model needs, per architecture (CUDA programming
 * guide tables and vendor datasheets; clocks are sustained boost clocks). The target supplies
 * the SM count; these supply what a target does not say.
 */
import type { CudaTarget } from "@tessera/codegen";

export interface GpuSpec {
  readonly smCount: number;
  /** Sustained SM clock in Hz. */
  readonly clockHz: number;
  /** FP32 lanes per SM: warp-wide FP32 instructions per cycle × 32. */
  readonly fp32LanesPerSM: number;
  /** Dense fp16 tensor-core flops per SM per cycle (mma.sync m16n8k16 with fp32 accumulation). */
  readonly tensorFlopsPerSM: number;
  /** Warp schedulers per SM (instructions issued per cycle). */
  readonly schedulersPerSM: number;
  readonly maxThreadsPerSM: number;
  readonly maxBlocksPerSM: number;
  readonly sharedBytesPerSM: number;
  readonly registersPerSM: number;
  /** Device memory bandwidth in bytes per second. */
  readonly dramBytesPerSec: number;
  /** Time to launch one kernel, in seconds. */
  readonly launchSec: number;
}

interface ArchSpec extends Omit<GpuSpec, "smCount"> {}

const HOPPER: ArchSpec = {
  clockHz: 1.755e9,
  fp32LanesPerSM: 128,
  // 989 TFLOP/s dense fp16 on an H100 SXM (132 SMs).
  tensorFlopsPerSM: 4096,
  schedulersPerSM: 4,
  maxThreadsPerSM: 2048,
  maxBlocksPerSM: 32,
  sharedBytesPerSM: 228 * 1024,
  registersPerSM: 65536,
  dramBytesPerSec: 3.35e12,
  launchSec: 2e-6,
};

const AMPERE: ArchSpec = {
  clockHz: 1.41e9,
  fp32LanesPerSM: 64,
  // 312 TFLOP/s dense fp16 on an A100 (108 SMs at 1.41 GHz).
  tensorFlopsPerSM: 2048,
  schedulersPerSM: 4,
  maxThreadsPerSM: 2048,
  maxBlocksPerSM: 32,
  sharedBytesPerSM: 164 * 1024,
  registersPerSM: 65536,
  dramBytesPerSec: 1.94e12,
  launchSec: 2.5e-6,
};

const TURING: ArchSpec = {
  clockHz: 1.59e9,
  fp32LanesPerSM: 64,
  // 65 TFLOP/s fp16 on a T4 (40 SMs at 1.59 GHz).
  tensorFlopsPerSM: 1024,
  schedulersPerSM: 4,
  maxThreadsPerSM: 1024,
  maxBlocksPerSM: 16,
  sharedBytesPerSM: 64 * 1024,
  registersPerSM: 65536,
  dramBytesPerSec: 320e9,
  launchSec: 3e-6,
};

/** The spec of `target`: its architecture's numbers (Turing's below sm_80, Hopper's from sm_90) and its SM count. */
export function gpuSpecOf(target: CudaTarget): GpuSpec {
  const arch = Number(target.arch.replace(/^sm_/, "").replace(/[a-z]$/, ""));
  const base = arch >= 90 ? HOPPER : arch >= 80 ? AMPERE : TURING;
  return {
    ...base,
    smCount: target.multiProcessorCount,
    maxThreadsPerSM: target.maxThreadsPerMultiProcessor ?? base.maxThreadsPerSM,
  };
}

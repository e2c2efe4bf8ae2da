/**
 * @tessera/corpus — scheduled GPU workloads shared by the compiler's tests, the simulator, the
 * CUDA compile checks and the benchmarks. Each entry builds a fresh `Schedule`.
 */
import { type PrimFunc, gemmReluAdd, vectorAdd } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { type ManualScheduleParams, annotateKernel, manualSchedule, naiveSchedule } from "./gemm-relu-add.js";
import { type FastScheduleParams, FAST_PARAMS, fastSchedule } from "./gemm-relu-add-fast.js";
import { pipelinedGemmSchedule } from "./pipelined-gemm.js";
import { vectorAddSchedule, windowSum, windowSumSchedule } from "./simple.js";

export * from "./gemm-relu-add.js";
export * from "./gemm-relu-add-fast.js";
export * from "./pipelined-gemm.js";
export * from "./simple.js";
export * from "./lowered.js";
export * from "./lowered-async-copy.js";
export * from "./lowered-bulk-copy.js";
export * from "./warp-specialized-wgmma-gemm.js";
export { tmaWgmmaGemmScript, tmaWgmmaTf32Plan, type KernelArgumentSource, type KernelModulePlan, type TmaWgmmaOptions } from "./tma-wgmma-gemm.js";
export { transposeScript } from "./transpose-script.js";
export { tmaWgmmaTf32RegisterBScript, type TmaWgmmaTf32RegisterBOptions } from "./tma-wgmma-tf32-register-b.js";
export * from "./gemm-relu-add-reference.js";
export * from "./half-gemm.js";
export * from "./half-output-gemm.js";
export * from "./d2l-gpu.js";
export * from "./wmma-gemm.js";
export * from "./mma-gemm.js";
export * from "./tf32-gemm.js";
export * from "./tf32x3-gemm.js";
export * from "./mma-gemm-relu-add.js";

export interface CorpusEntry {
  /** A short identifier, also a valid file name. */
  readonly name: string;
  readonly description: string;
  /** The unscheduled function (the reference for numerics). */
  readonly original: () => PrimFunc;
  readonly build: () => Schedule;
}

/** The manual schedule's tiles at 128³: 2×2 blocks of 16×16 threads. */
const SMALL_MANUAL_PARAMS: ManualScheduleParams = { tileX: 64, tileY: 64, tileK: 16, threadTileX: 4, threadTileY: 4, threadTileK: 1 };

/** The fast schedule's structure at 128³: 2×2 blocks of 64 threads (warps of 8×4), 2×2 vthreads of 4×4, two blocks per SM, unrolled loops expanded by Tessera. */
export const SMALL_FAST_PARAMS: FastScheduleParams = {
  ...FAST_PARAMS,
  blockRows: 64,
  blockCols: 64,
  vthreadRows: 2,
  vthreadCols: 2,
  warpCols: 4,
  minBlocksPerSM: 2,
  unrollMaxStep: 512,
  unrollExplicit: true,
};

/** Small instances of every workload, quick enough for the simulator in unit tests. */
export function scheduleCorpus(): CorpusEntry[] {
  return [
    {
      name: "vector_add",
      description: "vector add, 1000 elements, 128 threads per block (last block partial)",
      original: () => vectorAdd(1000).func,
      build: () => vectorAddSchedule(1000, 128),
    },
    {
      name: "window_sum",
      description: "window sum, 256 elements, shared stage fetched by 64 threads",
      original: () => windowSum(256),
      build: () => windowSumSchedule(256, 64),
    },
    { name: "gemm_relu_add_naive", description: "naive gemm+ReLU+add, 64³, 32×32 tiles", original: () => gemmReluAdd(64).func, build: () => naiveSchedule(64) },
    {
      name: "gemm_relu_add_manual",
      description: "manual gemm+ReLU+add, 128³, 64/64/16 shared tiles, 4×4 register tiles",
      original: () => gemmReluAdd(128).func,
      build: () => manualSchedule(128, SMALL_MANUAL_PARAMS),
    },
    {
      name: "gemm_relu_add_unrolled",
      description: "gemm_relu_add_manual with MetaSchedule's unroll pragmas on the gemm's outer loop (max step 512, explicit) and __launch_bounds__(256, 2)",
      original: () => gemmReluAdd(128).func,
      build: () => annotateKernel(manualSchedule(128, SMALL_MANUAL_PARAMS), "gemm", { unrollMaxStep: 512, unrollExplicit: true, minBlocksPerSM: 2 }),
    },
    {
      name: "gemm_relu_add_pipelined",
      description: "software-pipelined gemm+ReLU+add, 128³, 64×64 tiles, k chunks of 8 double-buffered in shared memory",
      original: () => gemmReluAdd(128).func,
      build: () => pipelinedGemmSchedule(128),
    },
    {
      name: "gemm_relu_add_fast",
      description:
        "fastSchedule at 128³: 64×64×8 tiles, 2×2 strided 4×4 sub-tiles per thread, float4 fetches through registers, transposed padded A tile, three-stage pipeline, unrolled, __launch_bounds__(64, 2)",
      original: () => gemmReluAdd(128).func,
      build: () => fastSchedule(128, SMALL_FAST_PARAMS),
    },
  ];
}
export * from "./wgmma-gemm.js";
export * from "./wgmma-tf32-gemm.js";
export * from "./wgmma-tf32x3-gemm.js";
export * from "./operand-prepass.js";

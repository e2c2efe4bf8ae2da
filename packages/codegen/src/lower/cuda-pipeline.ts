/**
 * The CUDA lowering pipeline: scheduled TensorIR → `LoweredModule` (device kernels, host
 * workspaces, launch metadata). Pass order as in docs/architecture/lowering.md.
 */
import type { PrimFunc } from "@tessera/ir";
import type { LoweredModule } from "../lowered.js";
import type { CudaTarget } from "../targets/cuda.js";
import type { LowerOptions } from "./lower-options.js";
import type { Pass } from "./pass.js";
import { PASSES_FRONT, simplifyPass } from "./passes/index.js";
import { injectBufferSwizzlePass, planBufferSwizzlePass } from "./passes/buffer-swizzle.js";
import { lowerTmaCopyPass } from "./passes/lower-tma-copy.js";
import { injectPTXAsyncCopyPass } from "./passes/inject-ptx-async-copy.js";
import { injectVirtualThreadPass } from "./passes/inject-virtual-thread.js";
import { foldWgmmaZeroFillPass } from "./passes/fold-wgmma-zero-fill.js";
import { injectWgmmaSyncPass } from "./passes/inject-wgmma-sync.js";
import { lowerWarpMemoryPass } from "./passes/lower-warp-memory.js";
import { dropPaddingGuardsPass, markPaddingGuardsPass } from "./passes/padding-guards.js";
import { functionSymbol, splitHostDevice } from "./passes/split-host-device.js";
import { threadSyncPass } from "./passes/thread-sync.js";
import { unrollLoopPass } from "./passes/unroll-loop.js";
import { vectorizeLoopPass } from "./passes/vectorize-loop.js";
import { verifyGpuCode } from "./passes/verify-gpu-code.js";
import { runPasses } from "./run-passes.js";

/**
 * The front passes with the padded tiles' guard removal around compaction (passes/padding-guards.ts):
 * marked while blocks have iterators, dropped once the buffers have their final extents; and the
 * swizzled layouts planned on the compacted (and pipelined) tiles (passes/buffer-swizzle.ts), and the
 * pipelined copies annotated `tma_copy` made TMA loads on those layouts (passes/lower-tma-copy.ts).
 */
const CUDA_FRONT: readonly Pass[] = PASSES_FRONT.flatMap((pass) => {
  if (pass.name === "convertBlocksToOpaque") return [markPaddingGuardsPass, pass];
  if (pass.name === "compactBufferAllocation") return [pass, dropPaddingGuardsPass];
  if (pass.name === "injectSoftwarePipeline") return [pass, planBufferSwizzlePass, lowerTmaCopyPass];
  return [pass];
});

/** The function-to-function passes for a CUDA target, in order; `splitHostDevice` and `verifyGpuCode` follow them. */
export const CUDA_LOWERING_PASSES: readonly Pass[] = [
  ...CUDA_FRONT,
  simplifyPass,
  lowerWarpMemoryPass,
  vectorizeLoopPass,
  injectVirtualThreadPass,
  unrollLoopPass,
  threadSyncPass,
  injectBufferSwizzlePass,
  injectPTXAsyncCopyPass,
  injectWgmmaSyncPass,
  simplifyPass,
];

export function lowerForCuda(source: PrimFunc, target: CudaTarget, opts: LowerOptions): LoweredModule {
  const recordStages = opts.recordStages === true;
  // foldWgmmaZeroFill is optional (LowerOptions): before injectWgmmaSync, which then sees no fill to wait for.
  const passes =
    opts.foldWgmmaZeroFill === true
      ? CUDA_LOWERING_PASSES.flatMap((p) => (p === injectWgmmaSyncPass ? [foldWgmmaZeroFillPass, p] : [p]))
      : CUDA_LOWERING_PASSES;
  const { func, stages } = runPasses(passes, source, { target }, recordStages);
  const { kernels, workspaces } = splitHostDevice(func);
  if (recordStages) stages.push({ pass: "splitHostDevice", func });
  if (opts.skipVerify !== true) for (const kernel of kernels) verifyGpuCode(kernel, target);
  return { name: functionSymbol(source), target, source, workspaces, kernels, stages };
}

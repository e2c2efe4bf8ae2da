/** Lowering passes 1–8 (blocks → flat, block-free TensorIR) and the reusable `simplify` pass. */
import type { Pass } from "../pass.js";
import { compactBufferAllocationPass } from "./compact-buffer-allocation.js";
import { convertBlocksToOpaquePass } from "./convert-blocks-to-opaque.js";
import { flattenBufferPass } from "./flatten-buffer.js";
import { injectSoftwarePipelinePass } from "./inject-software-pipeline.js";
import { lowerInitBlockPass } from "./lower-init-block.js";
import { lowerMatchBufferPass } from "./lower-match-buffer.js";
import { lowerOpaqueBlockPass } from "./lower-opaque-block.js";
import { planBufferAllocationPass } from "./plan-buffer-allocation.js";

export { compactBufferAllocation, compactBufferAllocationPass } from "./compact-buffer-allocation.js";
export { convertBlocksToOpaque, convertBlocksToOpaquePass } from "./convert-blocks-to-opaque.js";
export { type FlattenBufferOptions, flattenBuffer, flattenBufferPass } from "./flatten-buffer.js";
export { type InjectSoftwarePipelineOptions, injectSoftwarePipeline, injectSoftwarePipelinePass } from "./inject-software-pipeline.js";
export { lowerInitBlock, lowerInitBlockPass } from "./lower-init-block.js";
export { lowerOpaqueBlock, lowerOpaqueBlockPass } from "./lower-opaque-block.js";
export { planBufferAllocation, planBufferAllocationPass } from "./plan-buffer-allocation.js";
export { type SimplifyOptions, simplifyFunc, simplifyPass } from "./simplify.js";
export { removeNoOp, removeNoOpPass } from "./remove-no-op.js";
export { markPaddingGuards, markPaddingGuardsPass, dropPaddingGuards, dropPaddingGuardsPass, PADDING_GUARDS_ANNOTATION } from "./padding-guards.js";
export { unifyThreadBinding, unifyThreadBindingPass } from "./unify-thread-binding.js";
export { lowerMatchBuffer, lowerMatchBufferPass } from "./lower-match-buffer.js";

/** Passes 1–8 of docs/architecture/lowering.md, in pipeline order. */
export const PASSES_FRONT: readonly Pass[] = [
  lowerInitBlockPass,
  planBufferAllocationPass,
  convertBlocksToOpaquePass,
  compactBufferAllocationPass,
  lowerMatchBufferPass,
  injectSoftwarePipelinePass,
  lowerOpaqueBlockPass,
  flattenBufferPass,
];

export { vectorizeLoopPass } from "./vectorize-loop.js";
export { injectVirtualThreadPass } from "./inject-virtual-thread.js";
export { lowerWarpMemory, lowerWarpMemoryPass } from "./lower-warp-memory.js";
export { unrollLoopPass, cUnrollLoopPass, C_AUTO_UNROLL_MAX_STEP, MAX_UNROLLED_STATEMENTS } from "./unroll-loop.js";
export { threadSyncPass } from "./thread-sync.js";
export { injectPTXAsyncCopyPass } from "./inject-ptx-async-copy.js";
export { splitHostDevice, splitHostDevicePass, functionSymbol, type HostDeviceSplit } from "./split-host-device.js";
export { verifyGpuCode, MAX_LOCAL_BYTES_PER_THREAD } from "./verify-gpu-code.js";

/**
 * @tessera/schedule — TensorIR schedule primitives, traces and schedule errors.
 *
 * Named exports only. Every error class a primitive throws, for callers that tell them apart, is
 * the subpath `@tessera/schedule/errors`.
 */
export { type AnnotationInput, type BlockArg, Schedule, type ScheduleOptions, type StorageScopeName } from "./schedule.js";
export { BlockRV, LoopRV, ExprRV, type RV, isRV } from "./handles.js";
export type { LoopsFor, ExprRVs } from "./handle-args.js";
export { ScheduleError, StaleHandleError, ScheduleUsageError } from "./errors.js";
export type { Instruction, InstructionKind, InstructionInput, InstructionAttr, Decision } from "./instruction.js";
export { Trace } from "./trace/trace.js";
export { TraceFormatError, TraceReplayError, TraceTextError } from "./trace/errors.js";
export { applyTraceText, replayTraceCalls, type TextReplayOptions } from "./trace/text-replay.js";
export { parseTraceText, type TraceCall } from "./trace/text-parse.js";
export type { TraceJSON, TVMTraceJSON, TraceInstructionJSON } from "./trace/json.js";
export type { ApplyOptions, DecisionOverrides } from "./trace/replay.js";
export type { PrintOptions } from "./trace/print.js";
export { RandomEngine } from "./random.js";
export { factorize } from "./primitives/sampling/math.js";
export { TensorIntrin, TensorIntrinError } from "./tensor-intrin/registry.js";
export { WMMA_INTRINSICS } from "./tensor-intrin/cuda/wmma.js";
export { MMA_INTRINSICS } from "./tensor-intrin/cuda/mma.js";
export { mmaFragmentLayout, tf32FragmentLayout } from "./tensor-intrin/cuda/fragment-layout.js";
export { sharedSwizzle } from "./tensor-intrin/cuda/shared-swizzle.js";
export {
  WGMMA_B_STAGE_K,
  WGMMA_N,
  type WgmmaN,
  wgmmaAccumulatorLayout,
  wgmmaIntrinName,
  wgmmaKMajorLayout,
  wgmmaSharedLayout,
  wgmmaTf32IntrinName,
  wgmmaTf32RegisterAIntrinName,
  wgmmaTf32x3IntrinName,
} from "./tensor-intrin/cuda/wgmma.js";
export { BUFFER_SWIZZLE, PERMUTED_LAYOUT, SwizzleLayoutError, checkSwizzle, permutedLayoutMap, swizzleRunsContiguous } from "./primitives/layout/swizzle.js";
export { indexMapFromAttr } from "./primitives/layout/index-map.js";
export { rowMajorPrePass, rowMajorPrePasses, transposingPrePass, transposingPrePasses } from "./operand-prepass.js";
export { pipelineRegisterOperandLoads } from "./register-operand-pipeline.js";

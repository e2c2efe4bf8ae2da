/**
 * @tessera/schedule — TensorIR schedule primitives, traces and schedule errors.
 */
export { type AnnotationInput, type BlockArg, Schedule, type ScheduleOptions, type StorageScopeName } from "./schedule.js";
export { BlockRV, LoopRV, ExprRV, type RV, isRV } from "./handles.js";
export type { LoopsFor, ExprRVs } from "./handle-args.js";
export { ScheduleError, StaleHandleError, ScheduleUsageError } from "./errors.js";
export {
  type Instruction,
  type InstructionKind,
  type InstructionInput,
  type InstructionAttr,
  type Decision,
  instructionKind,
  allInstructionKinds,
} from "./instruction.js";
export { Trace } from "./trace/trace.js";
export { TraceFormatError, TraceReplayError, TraceTextError } from "./trace/errors.js";
export { applyTraceText, replayTraceCalls, type TextReplayOptions } from "./trace/text-replay.js";
export { parseTraceText, type TraceCall } from "./trace/text-parse.js";
export type { TraceJSON, TVMTraceJSON, TraceInstructionJSON } from "./trace/json.js";
export type { ApplyOptions, DecisionOverrides } from "./trace/replay.js";
export type { PrintOptions } from "./trace/print.js";
export { RandomEngine } from "./random.js";
export { factorize } from "./primitives/sampling/math.js";
export { BlockNotFoundError } from "./primitives/get-block-loop.js";
export { BufferIndexOutOfRangeError, InvalidStorageScopeError, NotSingleWriteBlock, NotRegionCoverError, CacheRootBlockError } from "./primitives/cache/read-write.js";
export { NonAllocatedBufferError, StorageAlignInvalidFactorError, StorageAlignAxisOutOfRangeError, StorageAlignInvalidAnnotationError } from "./primitives/buffer-scope.js";
export { canComputeAt, canReverseComputeAt, NotCompleteOrReductionBlockError, NotInSameScopeError, OutputBlockError, NotAllRequiredBlocksAreVisitedError, InsertionPointNotFoundError, InvalidInsertionIndexError, BufferRegionPatternError } from "./primitives/compute-at/index.js";
export { HasAnnotationOrThreadBindingError, LoopNotStartWithZeroError, DependentLoopError, NotSingleInferFactorError, NonPositiveFactorError, WrongFactorError, OuterNotInnerParent, NotOnlyChildError, LoopMultiAppearanceError, LoopsNotAChainError, BlockPropertyError } from "./primitives/loops/index.js";
export { WrongBlockIterTypeError, NotCompactDataFlowError, UnknownThreadAxisError } from "./primitives/for-kind.js";
export { AnnotationKeyNotFoundError, AnnotationValueTypeError } from "./primitives/annotate.js";
export { TransformLayoutError, type BufferSpec } from "./primitives/layout/transform.js";
export { IndexMapError, type IndexMapFn, type IndexMapResult } from "./primitives/layout/index-map.js";
export * from "./primitives/compute-inline/index.js"; export * from "./primitives/reduction/index.js";

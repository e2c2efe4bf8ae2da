/**
 * Every error a schedule primitive or a trace throws, for callers that tell them apart
 * (`err instanceof NotSingleInferFactorError`). Published as `@tessera/schedule/errors`; the main
 * entry exports only the base classes. Names follow TVM's `tir/schedule` error classes.
 */
export { ScheduleError, StaleHandleError, ScheduleUsageError } from "./errors.js";
export { TraceFormatError, TraceReplayError, TraceTextError } from "./trace/errors.js";
export { BlockNotFoundError } from "./primitives/get-block-loop.js";
export {
  BufferIndexOutOfRangeError,
  InvalidStorageScopeError,
  NotSingleWriteBlock,
  NotRegionCoverError,
  CacheRootBlockError,
} from "./primitives/cache/read-write.js";
export {
  NonAllocatedBufferError,
  StorageAlignInvalidFactorError,
  StorageAlignAxisOutOfRangeError,
  StorageAlignInvalidAnnotationError,
} from "./primitives/buffer-scope.js";
export {
  NotCompleteOrReductionBlockError,
  NotInSameScopeError,
  OutputBlockError,
  NotAllRequiredBlocksAreVisitedError,
  InsertionPointNotFoundError,
  InvalidInsertionIndexError,
  BufferRegionPatternError,
} from "./primitives/compute-at/index.js";
export {
  HasAnnotationOrThreadBindingError,
  LoopNotStartWithZeroError,
  DependentLoopError,
  NotSingleInferFactorError,
  NonPositiveFactorError,
  WrongFactorError,
  OuterNotInnerParent,
  NotOnlyChildError,
  LoopMultiAppearanceError,
  LoopsNotAChainError,
  BlockPropertyError,
} from "./primitives/loops/index.js";
export { WrongBlockIterTypeError, NotCompactDataFlowError, UnknownThreadAxisError } from "./primitives/for-kind.js";
export { AnnotationKeyNotFoundError, AnnotationValueTypeError } from "./primitives/annotate.js";
export { TransformLayoutError } from "./primitives/layout/transform.js";
export { IndexMapError } from "./primitives/layout/index-map.js";
export { SwizzleLayoutError } from "./primitives/layout/swizzle.js";
export { HasInitBlock, NotSingleReadWriteBuffer, BodyAnalysisError, NonSingleProducerError, OpaqueAccessError } from "./primitives/compute-inline/index.js";
export { IncompleteBlockError, NotReductionBlockError, NonSingleChildBlockError } from "./analysis/schedule-checks.js";
export { OnlyLeafError } from "./analysis/leaf-block-removal.js";
export {
  FactorAxisOutOfRangeError,
  LoopHeightError,
  LoopPositionError,
  LoopPropertyError,
  NotSerialLoopKindError,
  RFactorPredicateError,
} from "./primitives/reduction/errors.js";
export { NoMatchedReducerError, RFactorNotApplicableError } from "./analysis/reducer.js";
export { BlockizeBlocksError, SubspaceNotDivisibleError } from "./primitives/blockize/index.js";
export { TensorIntrinMismatchError } from "./primitives/tensorize/index.js";
export { TensorIntrinError } from "./tensor-intrin/registry.js";

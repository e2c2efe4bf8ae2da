/**
 * @tessera/ir — the TensorIR data model and everything that reads or writes it without
 * scheduling: arithmetic analysis, TVMScript printing and parsing, structural equality,
 * TE-style authoring, an operator library and a CPU executor.
 *
 * Named exports only: each name here is used by another package, an app, an assignment or the
 * package's README. The building blocks for executors with other semantics (the GPU simulator)
 * are the subpath `@tessera/ir/executor-kit`.
 */
export { TesseraError, IRError } from "./errors.js";
export {
  dtypeInfo,
  isValidDType,
  makeDType,
  elementType,
  withLanes,
  bytesOf,
  type DType,
  type DTypeInfo,
  isFloat,
  isBool,
  lanesOf,
  isScalableVector,
} from "./dtype.js";
export { vscale, isVScale, lanesOfExpr, scalableLanesExpr } from "./vscale.js";
export {
  intImm,
  floatImm,
  boolImm,
  stringImm,
  constant,
  variable,
  constIntValue,
  isConstInt,
  binary,
  not,
  select,
  cast,
  bufferLoad,
  predicatedLoad,
  checkAccessPredicate,
  ramp,
  broadcast,
  letExpr,
  call,
  type IntImm,
  type FloatImm,
  type StringImm,
  type Var,
  type BinaryOp,
  type Binary,
  type Not,
  type Select,
  type Cast,
  type BufferLoad,
  type Ramp,
  type Broadcast,
  type Let,
  type Call,
  type PrimExpr,
  type ExprLike,
  add,
  sub,
  mul,
  div,
  truncmod,
  floordiv,
  floormod,
  min,
  max,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  and,
  or,
} from "./expr.js";
export {
  intrinsicInfo,
  fabs,
  pow,
  ifThenElse,
  storageSync,
  UNARY_MATH,
  exp,
  log,
  sqrt,
  tanh,
  sigmoid,
  floor,
  ceil,
  round,
  trunc,
  tf32Round,
  tf32Truncate,
  bitwiseXor,
} from "./intrinsics.js";
export {
  ptxCpAsync,
  asAsyncCopy,
  asyncWaitOf,
  ASYNC_SCOPE,
  ASYNC_COMMIT_QUEUE_SCOPE,
  ASYNC_WAIT_QUEUE_SCOPE,
  ASYNC_WAIT_INFLIGHT_COUNT,
  ASYNC_ATTR_KEYS,
  type AsyncCopy,
  type AsyncWait,
} from "./async-copy.js";
export {
  MBARRIER_INIT,
  MBARRIER_ARRIVE,
  MBARRIER_ARRIVE_EXPECT_TX,
  MBARRIER_WAIT_PARITY,
  CP_ASYNC_BULK,
  CP_ASYNC_MBARRIER_ARRIVE,
  FENCE_PROXY_ASYNC,
  MBARRIER_OP_ARITY,
  BULK_COPY_ALIGNMENT,
  isMbarrierOp,
  checkMbarrierArity,
} from "./mbarrier.js";
export {
  CP_ASYNC_BULK_TENSOR_2D,
  CP_ASYNC_BULK_TENSOR_ARITY,
  TMA_COPY,
  TMA_COPY_INSTANCE,
  TMA_SWIZZLES,
  TMA_MAX_BOX,
  tensorMapOfCall,
  checkTensorMap,
  boxBytes,
  tmaDestinationAlignment,
  swizzledOffset,
  boxesOfTile,
  tensorMapsOf,
  type TmaSwizzle,
  type TensorMapSpec,
} from "./tensor-map.js";
export { SETMAXNREG_INC, SETMAXNREG_DEC, isSetmaxnreg, setmaxnregCount } from "./setmaxnreg.js";
export {
  isStorageScope,
  declBuffer,
  withBuffer,
  constantSize,
  constantShape,
  type StorageScope,
  type StorageRankName,
  STORAGE_SCOPES,
  STORAGE_RANKS,
  STORAGE_SCOPE_SYNTAX,
  storageRankOf,
  type Buffer,
} from "./buffer.js";
export {
  range,
  rangeFromExtent,
  iterVar,
  fullRegion,
  bufferStore,
  predicatedStore,
  seq,
  ifThenElseStmt,
  whileLoop,
  forLoop,
  evaluate,
  letStmt,
  allocate,
  attrStmt,
  block,
  blockRealize,
  type Range,
  type AttrValue,
  type Annotations,
  type IterType,
  type IterVar,
  type BufferRegion,
  type MatchBufferRegion,
  type ForKind,
  type BufferStore,
  type SeqStmt,
  type IfThenElse,
  type While,
  type For,
  type Evaluate,
  type LetStmt,
  type Allocate,
  type DeclBuffer,
  type AttrStmt,
  type Block,
  type BlockRealize,
  type Stmt,
} from "./stmt.js";
export { primFunc, paramBuffers, withBody, irModule, entryFunctionName, getFunction, withFunction, type PrimFunc, type IRModule } from "./func.js";
export { annotationInt, annotationFlag, describeAttrValue, annotationValueProblem, ANNOTATION_KEYS } from "./annotation-keys.js";
export { forEachExpr, forEachStmt, forEachBlockRealize, usesVar, substitute, substituteStmt, mapArray, IRVisitor, IRMutator, Substituter } from "./functor.js";
// Arithmetic analysis (TVM's tvm.arith): bounds, linear forms, integer sets, iterator maps.
export {
  Analyzer,
  simplify,
  type IntBound,
  type VarBoundFacts,
  constIntBoundOf,
  sameExprStructure,
  evalIntBinary,
  evalIntExpr,
  gcdInt,
} from "./arith/index.js";
export { type LinearForm, type LinearTerm, addForms, linearFormBound, linearFormOf, linearFormToExpr, scaleForm } from "./arith/index.js";
export { type IntervalSet, NEG_INF, POS_INF, UNBOUNDED_INTERVAL, isFiniteInterval, evalSet } from "./arith/index.js";
export { intervalFromRange, unionIntervals, intersectIntervals } from "./arith/index.js";
export { type IterMark, type IterSplit, type IterSum, detectIterMap, iterMapSimplify } from "./arith/index.js";
export * from "./arith/reduction/form.js";
export { asRamp } from "./arith/vector-index.js";
export {
  inferAccessRegions,
  WellFormedError,
  verifyWellFormed,
  canRelaxStorageUnderThread,
  isGlobalScope,
  isLaunchTag,
  isThreadIdxTag,
  isVirtualThreadTag,
} from "./analysis/index.js";
export {
  structuralEqual,
  structuralDiff,
  assertStructuralEqual,
  type StructuralDifference,
  structuralHash,
  structuralHashes,
  type StructuralHashes,
  writeStructuralTokens,
  type StructuralOptions,
} from "./structural/index.js";
export { printTVMScript, printExpr, printStmt, describeAccess, type PrinterOptions, type TVMScriptPrintOptions } from "./printer/index.js";
export { parseTVMScript, parsePrimFunc, type ParseOptions, TVMScriptSyntaxError } from "./parser/index.js";
export { buildPrimFunc, PrimFuncBuilder, type BuildOptions } from "./builder/index.js";
export { Tensor, placeholder, compute, reduceAxis, reduceSum, minValue, maxValue, createPrimFunc, te } from "./te/index.js";
export { type OperatorBuild, vectorAdd, batchMatmul, matmul, conv2d, gemmReluAdd, ops } from "./ops/index.js";
export {
  ExecutionError,
  type TypedArray,
  type TypedArrayConstructor,
  typedArrayFor,
  typedArrayConstructorFor,
  type CompileOptions,
  type CompiledPrimFunc,
  compilePrimFunc,
  runPrimFunc,
  type RandomArgsOptions,
  randomArgs,
  mulberry32,
  type Tolerance,
  toleranceForDType,
} from "./exec/index.js";
export * from "./exec/half-precision.js";

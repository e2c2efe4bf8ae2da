/**
 * The CPU executor: compiles PrimFuncs to JavaScript and runs them on typed arrays.
 */
export { ExecutionError } from "./errors.js";
export { type TypedArray, type TypedArrayConstructor, typedArrayFor, typedArrayConstructorFor } from "./typed-arrays.js";
export { type CompileOptions, type CompiledPrimFunc, compilePrimFunc, runPrimFunc } from "./compile.js";
export { type ParamInfo, type ArgumentValue } from "./arguments.js";
export { type RandomArgsOptions, allocateArgs, randomArgs } from "./arrays.js";
export { roundToFloat16, roundHalfAwayFromZero, mulberry32 } from "./numeric.js";

// Building blocks for executors with other semantics (the GPU simulator compiles kernels with them).
export { EmitContext, type EmitHooks, type BufferLayout, type CapturedCode } from "./context.js";
export { emitStmt } from "./emit-stmt.js";
export { emitExpr } from "./emit-expr.js";
export { declareBufferLayout } from "./buffer-layout.js";
export { type ErrorSite, ErrorSiteTable, type ExecRuntime, makeRuntime } from "./runtime.js";
export { RUNTIME_PRELUDE } from "./scalar-ops.js";
export { AsyncCopyQueue, ImmediateCopies, type IssuedCopy, landCopy } from "./async-copies.js";
export { describeBufferType } from "./arguments.js";

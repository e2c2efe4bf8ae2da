/**
 * Building blocks for executors with other semantics than the CPU executor's (the GPU simulator
 * compiles kernels with them): the JavaScript emitters, buffer layouts, the runtime and its error
 * sites, and the asynchronous-copy queue. Published as `@tessera/ir/executor-kit`.
 */
export { EmitContext, type EmitHooks, type BufferLayout, type CapturedCode } from "./context.js";
export { emitStmt } from "./emit-stmt.js";
export { emitExpr } from "./emit-expr.js";
export { assembleSource } from "./compile.js";
export { declareBufferLayout } from "./buffer-layout.js";
export { type ErrorSite, ErrorSiteTable, type ExecRuntime, makeRuntime } from "./runtime.js";
export { RUNTIME_PRELUDE } from "./scalar-ops.js";
export { AsyncCopyQueue, ImmediateCopies, type IssuedCopy, landCopy } from "./async-copies.js";
export { describeBufferType } from "./arguments.js";
export { LoopOutliner, type LoopOutlinerOptions, usedIdentifiers } from "./outline-loops.js";

/**
 * @tessera/ir — the TensorIR data model and everything that reads or writes it without
 * scheduling: arithmetic analysis, TVMScript printing and parsing, structural equality,
 * TE-style authoring, an operator library and a CPU executor.
 */
export * from "./errors.js";
export * from "./dtype.js";
export * from "./expr.js";
export * from "./intrinsics.js";
export * from "./async-copy.js";
export * from "./buffer.js";
export * from "./stmt.js";
export * from "./func.js";
export * from "./annotation-keys.js";
export * from "./functor.js";
export * from "./arith/index.js";
export * from "./analysis/index.js";
export * from "./structural/index.js";
export * from "./printer/index.js";
export * from "./parser/index.js";
export * from "./builder/index.js";
export * from "./te/index.js";
export * from "./ops/index.js";
export * from "./exec/index.js";

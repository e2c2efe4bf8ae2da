/**
 * The CPU executor: compiles PrimFuncs to JavaScript and runs them on typed arrays.
 */
export { ExecutionError } from "./errors.js";
export { type TypedArray, type TypedArrayConstructor, typedArrayFor, typedArrayConstructorFor } from "./typed-arrays.js";
export { type CompileOptions, type CompiledPrimFunc, compilePrimFunc, runPrimFunc } from "./compile.js";
export type { ParamInfo, ArgumentValue } from "./arguments.js";
export { type RandomArgsOptions, allocateArgs, randomArgs } from "./arrays.js";
export { roundHalfAwayFromZero, mulberry32 } from "./numeric.js";
export { type Tolerance, toleranceForDType } from "./tolerance.js";
export * from "./half-precision.js";

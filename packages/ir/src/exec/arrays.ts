/**
 * Argument arrays for a PrimFunc's buffer parameters: zeroed, or filled with deterministic
 * pseudo-random values.
 */
import { type DType, dtypeInfo } from "../dtype.js";
import type { PrimFunc } from "../func.js";
import { paramBuffers } from "../func.js";
import type { Buffer } from "../buffer.js";
import { describeBufferType, functionName, requiredLength } from "./arguments.js";
import { ExecutionError } from "./errors.js";
import { mulberry32 } from "./numeric.js";
import { roundToFloatPrecision } from "./half-precision.js";
import { type TypedArray, typedArrayFor } from "./typed-arrays.js";

function constantLength(func: PrimFunc, buffer: Buffer): number {
  const n = requiredLength(buffer, new Map());
  if (n === undefined) {
    throw new ExecutionError(
      `${functionName(func)}: buffer ${buffer.name} has the symbolic type ${describeBufferType(buffer)}; ` + `allocate its array yourself (typedArrayFor)`,
    );
  }
  return n;
}

/** Zeroed arrays, one per buffer parameter in parameter order (scalar parameters are skipped). */
export function allocateArgs(func: PrimFunc): TypedArray[] {
  return paramBuffers(func).map((b) => typedArrayFor(b.dtype, constantLength(func, b)));
}

export interface RandomArgsOptions {
  /** Lower bound (inclusive). Defaults: floats -1, signed ints -10, unsigned 0. */
  low?: number;
  /** Upper bound (exclusive for floats, inclusive for integers). Defaults: floats 1, ints 10. */
  high?: number;
}

/**
 * Arrays like `allocateArgs`, filled from a seeded PRNG (mulberry32): the same seed gives the same
 * values. Floats are uniform in [low, high) and rounded to the dtype; integers uniform in
 * [low, high]; bools 0 or 1.
 */
export function randomArgs(func: PrimFunc, seed: number, opts: RandomArgsOptions = {}): TypedArray[] {
  const next = mulberry32(seed);
  return paramBuffers(func).map((b) => {
    const array = typedArrayFor(b.dtype, constantLength(func, b));
    const draw = sampler(b.dtype, next, opts);
    for (let i = 0; i < array.length; i++) array[i] = draw();
    return array;
  });
}

function sampler(dt: DType, next: () => number, opts: RandomArgsOptions): () => number {
  const { code, bits } = dtypeInfo(dt);
  if (code === "bool") return () => (next() < 0.5 ? 0 : 1);
  if (code === "float" || code === "bfloat") {
    const low = opts.low ?? -1;
    const high = opts.high ?? 1;
    const value = (): number => low + (high - low) * next();
    return bits === 16 ? () => roundToFloatPrecision(code, bits, value()) : value;
  }
  const low = Math.ceil(opts.low ?? (code === "uint" ? 0 : -10));
  const high = Math.floor(opts.high ?? 10);
  if (!(high >= low)) throw new ExecutionError(`randomArgs: empty integer range [${low}, ${high}] for ${dt}`);
  return () => low + Math.floor(next() * (high - low + 1));
}

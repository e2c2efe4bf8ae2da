/**
 * Which JS typed array holds the elements of each dtype.
 *
 * Two dtypes have no exact JS counterpart:
 * - `int64` / `uint64` live in a `Float64Array`; values are exact integers up to 2^53 and
 *   arithmetic on them does not wrap (it stays exact as long as results stay below 2^53).
 * - `float16` and `bfloat16` live in a `Float32Array`; every result of those dtypes and every
 *   store into such a buffer is rounded to the format (`half-precision.ts`), so the array only
 *   ever holds values of the format (`encodeHalfArray` gives the device's 16-bit patterns).
 */
import { type DType, dtypeInfo } from "../dtype.js";
import { ExecutionError } from "./errors.js";

export type TypedArray = Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;

export type TypedArrayConstructor =
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | Int8ArrayConstructor
  | Int16ArrayConstructor
  | Int32ArrayConstructor
  | Uint8ArrayConstructor
  | Uint16ArrayConstructor
  | Uint32ArrayConstructor;

/** The constructor whose instances hold elements of the scalar dtype `dt`. */
export function typedArrayConstructorFor(dt: DType): TypedArrayConstructor {
  const info = dtypeInfo(dt);
  if (info.lanes !== 1) {
    throw new ExecutionError(`the CPU executor does not support vector element dtype ${dt} in buffers`);
  }
  switch (info.code) {
    case "bool":
      return Uint8Array;
    case "float":
      return info.bits === 64 ? Float64Array : Float32Array;
    case "bfloat":
      return Float32Array;
    case "int":
      if (info.bits < 8) throw new ExecutionError(`the CPU executor does not support the sub-byte dtype ${dt}`);
      if (info.bits === 8) return Int8Array;
      if (info.bits === 16) return Int16Array;
      if (info.bits === 32) return Int32Array;
      return Float64Array;
    case "uint":
      if (info.bits < 8) throw new ExecutionError(`the CPU executor does not support the sub-byte dtype ${dt}`);
      if (info.bits === 8) return Uint8Array;
      if (info.bits === 16) return Uint16Array;
      if (info.bits === 32) return Uint32Array;
      return Float64Array;
    case "handle":
      throw new ExecutionError("a buffer of dtype handle cannot be executed");
    default:
      throw new ExecutionError(`the CPU executor does not support dtype ${dt} (the float8/6/4 formats are parse/print only)`);
  }
}

/** A zeroed typed array of `length` elements of dtype `dt` (see the module comment for int64, float16 and bfloat16). */
export function typedArrayFor(dt: DType, length: number): TypedArray {
  if (!Number.isInteger(length) || length < 0) {
    throw new ExecutionError(`typedArrayFor(${dt}): length must be a non-negative integer, got ${length}`);
  }
  const Ctor = typedArrayConstructorFor(dt);
  return new Ctor(length);
}

/** `Float32Array`, `Int32Array`, … or a plain description of a non-typed-array value (for error messages). */
export function describeValueType(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  if (Array.isArray(value)) return "a plain Array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return `${typeof value} ${String(value)}`;
}

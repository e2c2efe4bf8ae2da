/** Data types of device arrays and scalar kernel parameters, spelled as TVM spells them. */

import { KERNEL_PARAM_DTYPES } from "@tessera/codegen";

/** The same list the launch metadata allows for kernel parameters. */
export const DTYPES = KERNEL_PARAM_DTYPES;

export type DType = (typeof DTYPES)[number];

export type TypedArrayFor<D extends DType> = D extends "bool" | "uint8"
  ? Uint8Array
  : D extends "int8"
    ? Int8Array
    : D extends "int16"
      ? Int16Array
      : D extends "int32"
        ? Int32Array
        : D extends "int64"
          ? BigInt64Array
          : D extends "uint16" | "float16" | "bfloat16"
            ? Uint16Array
            : D extends "uint32"
              ? Uint32Array
              : D extends "uint64"
                ? BigUint64Array
                : D extends "float32"
                  ? Float32Array
                  : D extends "float64"
                    ? Float64Array
                    : never;

export type AnyTypedArray =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

type TypedArrayCtor = { new (length: number): AnyTypedArray; readonly BYTES_PER_ELEMENT: number };

const CTORS: Record<DType, TypedArrayCtor> = {
  bool: Uint8Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  float16: Uint16Array,
  bfloat16: Uint16Array,
  float32: Float32Array,
  float64: Float64Array,
};

export function isDType(s: string): s is DType {
  return (DTYPES as readonly string[]).includes(s);
}

export function dtypeBytes(dtype: DType): number {
  return CTORS[dtype].BYTES_PER_ELEMENT;
}

export function typedArrayCtor(dtype: DType): TypedArrayCtor {
  return CTORS[dtype];
}

export function allocTypedArray<D extends DType>(dtype: D, length: number): TypedArrayFor<D> {
  return new CTORS[dtype](length) as TypedArrayFor<D>;
}

/** The dtype that a TypedArray holds by default (16-bit floats need an explicit dtype). */
export function dtypeOfTypedArray(a: AnyTypedArray): DType {
  if (a instanceof Float32Array) return "float32";
  if (a instanceof Float64Array) return "float64";
  if (a instanceof Int32Array) return "int32";
  if (a instanceof Uint32Array) return "uint32";
  if (a instanceof Int16Array) return "int16";
  if (a instanceof Uint16Array) return "uint16";
  if (a instanceof Int8Array) return "int8";
  if (a instanceof Uint8Array) return "uint8";
  if (a instanceof BigInt64Array) return "int64";
  return "uint64";
}

/** Whether a TypedArray can hold elements of `dtype` bit for bit. */
export function typedArrayMatches(dtype: DType, a: AnyTypedArray): boolean {
  return a instanceof CTORS[dtype];
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * 16-bit float arrays hold raw bit patterns (Uint16Array); the host has no half type. Conversions
 * from and to numbers round exactly as the executor and the simulator do (one shared module).
 */
export { float16Bits, bfloat16Bits, encodeHalfArray, decodeHalfArray, isHalfDType, type HalfDType } from "@tessera/ir";

/** The 32-bit pattern of a float32 value. */
export function float32Bits(value: number): number {
  f32[0] = value;
  return u32[0] as number;
}

/** Metal Shading Language types of TensorIR dtypes (no double: Metal has no 64-bit floats). */
import { type DType, elementType, lanesOf } from "@tessera/ir";

const SCALARS: Readonly<Partial<Record<DType, string>>> = {
  bool: "bool",
  int8: "char",
  int16: "short",
  int32: "int",
  int64: "long",
  uint8: "uchar",
  uint16: "ushort",
  uint32: "uint",
  uint64: "ulong",
  float16: "half",
  float32: "float",
};

/** The MSL type of `dtype` (`float`, `half4`), or undefined when Metal has none. */
export function metalTypeOf(dtype: DType): string | undefined {
  const scalar = SCALARS[elementType(dtype)];
  const lanes = lanesOf(dtype);
  if (scalar === undefined) return undefined;
  if (lanes === 1) return scalar;
  return lanes >= 2 && lanes <= 4 ? `${scalar}${lanes}` : undefined;
}

export const SUPPORTED_METAL_DTYPES = "bool, 8–64-bit integers, float16, float32, and vectors of 2–4 lanes of them";

/** MSL (C++) words and Metal built-ins a generated identifier must avoid. */
export const METAL_RESERVED: readonly string[] = [
  "kernel",
  "device",
  "constant",
  "threadgroup",
  "thread",
  "half",
  "uchar",
  "ushort",
  "uint",
  "ulong",
  "metal",
  "select",
  "as_type",
  "threadgroup_barrier",
  "simdgroup_barrier",
  "mem_flags",
  "rsqrt",
  "args",
  "vec",
  "float2",
  "float3",
  "float4",
  "int2",
  "int3",
  "int4",
  "uint2",
  "uint3",
  "uint4",
  "half2",
  "half3",
  "half4",
];

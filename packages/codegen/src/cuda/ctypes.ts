/**
 * CUDA C spellings of TensorIR dtypes. Only types with an exact CUDA counterpart are supported;
 * anything else is reported by the caller as a CodegenError.
 */
import { type DType, dtypeInfo, isValidDType } from "@tessera/ir";

const SCALAR_TYPES: Readonly<Record<string, string>> = {
  bool: "bool",
  int8: "signed char",
  int16: "short",
  int32: "int",
  int64: "long long",
  uint8: "unsigned char",
  uint16: "unsigned short",
  uint32: "unsigned int",
  uint64: "unsigned long long",
  float32: "float",
  float64: "double",
};

/** Built-in CUDA vector types (they have `.x .y .z .w` lanes and `make_<type>` constructors). */
const VECTOR_TYPES: Readonly<Record<string, string>> = {
  float32x2: "float2",
  float32x4: "float4",
  float64x2: "double2",
  int32x2: "int2",
  int32x4: "int4",
};

export const LANE_NAMES = ["x", "y", "z", "w"] as const;

/** The C type of a scalar or built-in vector dtype, or undefined when CUDA has none. */
export function cTypeOf(dtype: DType): string | undefined {
  return SCALAR_TYPES[dtype] ?? VECTOR_TYPES[dtype];
}

export function isCudaVectorType(dtype: DType): boolean {
  return VECTOR_TYPES[dtype] !== undefined;
}

/** Human-readable list for error messages. */
export function supportedDTypes(): string {
  return [...Object.keys(SCALAR_TYPES), ...Object.keys(VECTOR_TYPES)].join(", ");
}

export function isFloatDType(dtype: DType): boolean {
  return isValidDType(dtype) && dtypeInfo(dtype).code === "float";
}

export function isIntegerDType(dtype: DType): boolean {
  if (!isValidDType(dtype)) return false;
  const code = dtypeInfo(dtype).code;
  return code === "int" || code === "uint";
}

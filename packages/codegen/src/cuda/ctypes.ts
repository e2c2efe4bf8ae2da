/**
 * CUDA C spellings of TensorIR dtypes. Only types with an exact CUDA counterpart are supported
 * (float16 and bfloat16 are cuda_fp16.h's `__half` and cuda_bf16.h's `__nv_bfloat16`);
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
  float16: "__half",
  bfloat16: "__nv_bfloat16",
  float32: "float",
  float64: "double",
};

/** Built-in CUDA vector types (they have `.x .y .z .w` lanes and `make_<type>` constructors). */
const VECTOR_TYPES: Readonly<Record<string, string>> = {
  float16x2: "__half2",
  bfloat16x2: "__nv_bfloat162",
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

/** The constructor of a built-in vector type (`make_float4`, `make_half2`). */
export function vectorConstructor(type: string): string {
  if (type === "__half2") return "make_half2";
  if (type === "__nv_bfloat162") return "make_bfloat162";
  return `make_${type}`;
}

/** The 16-bit float dtypes, whose arithmetic cuda_fp16.h / cuda_bf16.h provide. */
export type HalfCudaDType = "float16" | "bfloat16";

/** The 16-bit float element type of a scalar or vector dtype, or undefined. */
export function halfElementOf(dtype: DType): HalfCudaDType | undefined {
  if (!isValidDType(dtype)) return undefined;
  const { code, bits } = dtypeInfo(dtype);
  if (code === "bfloat") return "bfloat16";
  return code === "float" && bits === 16 ? "float16" : undefined;
}

/** Human-readable list for error messages. */
export function supportedDTypes(): string {
  return [...Object.keys(SCALAR_TYPES), ...Object.keys(VECTOR_TYPES)].join(", ");
}

/** IEEE floats and bfloat16. */
export function isFloatDType(dtype: DType): boolean {
  if (!isValidDType(dtype)) return false;
  const code = dtypeInfo(dtype).code;
  return code === "float" || code === "bfloat";
}

export function isIntegerDType(dtype: DType): boolean {
  if (!isValidDType(dtype)) return false;
  const code = dtypeInfo(dtype).code;
  return code === "int" || code === "uint";
}

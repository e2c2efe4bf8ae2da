/** C99 spellings of scalar TensorIR dtypes (<stdint.h>, <stdbool.h>). */
import type { DType } from "@tessera/ir";

const C_TYPES: Readonly<Record<string, string>> = {
  bool: "bool",
  int8: "int8_t",
  int16: "int16_t",
  int32: "int32_t",
  int64: "int64_t",
  uint8: "uint8_t",
  uint16: "uint16_t",
  uint32: "uint32_t",
  uint64: "uint64_t",
  float32: "float",
  float64: "double",
};

export function cScalarType(dtype: DType): string | undefined {
  return C_TYPES[dtype];
}

export const SUPPORTED_C_DTYPES = Object.keys(C_TYPES).join(", ");

/**
 * CUDA C for the 16-bit float types (`__half` from cuda_fp16.h, `__nv_bfloat16` from cuda_bf16.h)
 * and the tf32 rounding. The executor's semantics (half-precision.ts in @tessera/ir) are the
 * contract: every conversion rounds once, to nearest even, from the exact source value; `+ - * /`
 * are the headers' operators (correctly rounded); math functions run in float and round once.
 */
import { type DType, roundToBFloat16, roundToFloat16 } from "@tessera/ir";
import { float32Literal } from "../c-family/literals.js";
import { type HalfCudaDType, halfElementOf } from "./ctypes.js";
import type { Feature } from "./preamble.js";

export type HalfTypeFeature = "cuda_fp16" | "cuda_bf16" | "tf32_round";

/** The header feature a dtype needs (its element type is float16 or bfloat16), if any. */
export function halfTypeFeature(dtype: DType): HalfTypeFeature | undefined {
  const half = halfElementOf(dtype);
  if (half === undefined) return undefined;
  return half === "float16" ? "cuda_fp16" : "cuda_bf16";
}

const TO_FLOAT: Readonly<Record<HalfCudaDType, string>> = { float16: "__half2float", bfloat16: "__bfloat162float" };
const FROM_FLOAT: Readonly<Record<HalfCudaDType, string>> = { float16: "__float2half_rn", bfloat16: "__float2bfloat16_rn" };
const FROM_DOUBLE: Readonly<Record<HalfCudaDType, string>> = { float16: "__double2half", bfloat16: "__double2bfloat16" };
/** Integer conversions that round once from the integer (through float, bfloat16 would round twice). */
const FROM_INTEGER: Readonly<Record<string, (half: "half" | "bfloat16") => string>> = {
  int32: (h) => `__int2${h}_rn`,
  uint32: (h) => `__uint2${h}_rn`,
  int64: (h) => `__ll2${h}_rn`,
  uint64: (h) => `__ull2${h}_rn`,
  int16: (h) => `__short2${h}_rn`,
  uint16: (h) => `__ushort2${h}_rn`,
};

/** `x` (a value of the 16-bit float `half`) as a float. */
export function halfToFloat(half: HalfCudaDType, x: string): string {
  return `${TO_FLOAT[half]}(${x})`;
}

/** A float `x` rounded to the 16-bit float `half`. */
export function floatToHalf(half: HalfCudaDType, x: string): string {
  return `${FROM_FLOAT[half]}(${x})`;
}

/**
 * The cast of scalar text `x` from `from` to `to` where either side is a 16-bit float, or
 * undefined when neither is (the caller writes a C cast). `cType` spells a non-16-bit type.
 */
export function halfCast(from: DType, to: DType, x: string, cType: (dtype: DType) => string): string | undefined {
  const src = halfElementOf(from);
  const dst = halfElementOf(to);
  if (src === undefined && dst === undefined) return undefined;
  if (from === to) return x;
  if (dst === undefined) {
    const asFloat = halfToFloat(src!, x);
    return to === "float32" ? asFloat : `((${cType(to)})${asFloat})`;
  }
  if (src !== undefined || from === "float32") return floatToHalf(dst, src !== undefined ? halfToFloat(src, x) : x);
  if (from === "float64") return `${FROM_DOUBLE[dst]}(${x})`;
  const fromInteger = FROM_INTEGER[from];
  const suffix = dst === "float16" ? "half" : "bfloat16";
  // bool, int8 and uint8 widen to int exactly first.
  return fromInteger !== undefined ? `${fromInteger(suffix)}(${x})` : `__int2${suffix}_rn(((int)${x}))`;
}

/** A 16-bit float constant: the rounded value as a float literal, converted exactly. */
export function halfLiteral(half: HalfCudaDType, value: number): string {
  const rounded = half === "float16" ? roundToFloat16(value) : roundToBFloat16(value);
  return floatToHalf(half, float32Literal(rounded));
}

/**
 * Binary operators the headers do not define for 16-bit floats, on printed operands; undefined
 * for the infix operators (`+ - * /` and comparisons), which they do define.
 */
export function halfBinary(half: HalfCudaDType, op: string, a: string, b: string): string | undefined {
  switch (op) {
    case "mod":
      // fmod's result is exact in the operands' precision, so converting back does not round.
      return floatToHalf(half, `fmodf(${halfToFloat(half, a)}, ${halfToFloat(half, b)})`);
    case "floordiv":
      return `hfloor((${a} / ${b}))`;
    case "floormod":
      return `(${a} - (hfloor((${a} / ${b})) * ${b}))`;
    case "min":
      return `__hmin(${a}, ${b})`;
    case "max":
      return `__hmax(${a}, ${b})`;
    default:
      return undefined;
  }
}

/** `T.tf32_round(x)`: inline PTX `cvt.rna.tf32.f32` on sm_80+, the same rounding in integer arithmetic before. */
export const TF32_ROUND_HELPER = `#ifndef TESSERA_TF32_ROUND_DEFINED
#define TESSERA_TF32_ROUND_DEFINED
// Round a float to tf32 (10 mantissa bits, ties away from zero), kept in a float with the low 13 bits zero.
__device__ __forceinline__ float tessera_tf32_round(float x) {
#if __CUDA_ARCH__ >= 800
  unsigned int bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits & 0xffffe000u);
#else
  return isnan(x) ? x : __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
#endif
}
#endif`;

/** The `#include`s and helpers of the 16-bit float and tf32 features in use, in a fixed order. */
export function halfTypePreamble(has: (feature: Feature) => boolean): string[] {
  const parts: string[] = [];
  if (has("cuda_fp16")) parts.push("#include <cuda_fp16.h>");
  if (has("cuda_bf16")) parts.push("#include <cuda_bf16.h>");
  if (has("tf32_round")) parts.push(TF32_ROUND_HELPER);
  return parts;
}

/**
 * Rounding to, and bit patterns of, the 16-bit float formats (IEEE float16, bfloat16) and the
 * tf32 rounding of a float32. The executor, the GPU simulator and the runtime's host conversions
 * all round through this module, so they agree bit for bit.
 *
 * Values stay JS numbers (a float16 or bfloat16 value is exactly representable in a float32 and
 * a double). Rounding is always from the double given: + - * / and sqrt of 16-bit operands
 * computed in double and rounded once here give the correctly rounded result (53 ≥ 2·11 + 2, the
 * condition under which double rounding is innocuous), as CUDA's `__half` / `__nv_bfloat16`
 * arithmetic does.
 */

interface BinaryFloatFormat {
  /** Explicit mantissa (fraction) bits. */
  readonly mantissaBits: number;
  /** Exponent of the smallest normal number (below it the spacing stays that of the subnormals). */
  readonly minExponent: number;
  /** Exponent of the largest finite numbers: a rounded value of 2^(maxExponent + 1) or more is infinite. */
  readonly maxExponent: number;
}

const FLOAT16: BinaryFloatFormat = { mantissaBits: 10, minExponent: -14, maxExponent: 15 };
const BFLOAT16: BinaryFloatFormat = { mantissaBits: 7, minExponent: -126, maxExponent: 127 };
const TF32: BinaryFloatFormat = { mantissaBits: 10, minExponent: -126, maxExponent: 127 };

const scratch = new DataView(new ArrayBuffer(8));

/** The unbiased binary exponent of a finite positive double (double subnormals count as -1023). */
function exponentOf(a: number): number {
  scratch.setFloat64(0, a);
  return ((scratch.getUint32(0) >>> 20) & 0x7ff) - 1023;
}

function roundHalfEven(q: number): number {
  const f = Math.floor(q);
  const diff = q - f;
  if (diff !== 0.5) return diff < 0.5 ? f : f + 1;
  return f % 2 === 0 ? f : f + 1;
}

function roundTo(x: number, format: BinaryFloatFormat, tiesAway: boolean): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const quantum = 2 ** (Math.max(exponentOf(a), format.minExponent) - format.mantissaBits);
  // a / quantum is exact: quantum is a power of two and the quotient stays below 2^(mantissaBits + 2).
  const q = a / quantum;
  const rounded = (tiesAway ? Math.floor(q + 0.5) : roundHalfEven(q)) * quantum;
  const magnitude = rounded >= 2 ** (format.maxExponent + 1) ? Infinity : rounded;
  return x < 0 ? -magnitude : magnitude;
}

/** The nearest IEEE float16 value (ties to even); overflow gives ±Infinity, tiny values subnormals or ±0. */
export function roundToFloat16(x: number): number {
  return roundTo(x, FLOAT16, false);
}

/** The nearest bfloat16 value (ties to even), as `__float2bfloat16_rn` for a float32 input. */
export function roundToBFloat16(x: number): number {
  return roundTo(x, BFLOAT16, false);
}

/**
 * tf32 rounding of a float32 as the tensor cores read it: 10 mantissa bits kept, round to
 * nearest with ties away from zero (PTX `cvt.rna.tf32.f32`), the result a float32 whose low 13
 * bits are zero. The input is taken as a float32 first (`Math.fround`), as the instruction's is.
 */
export function roundToTF32(x: number): number {
  return roundTo(Math.fround(x), TF32, true);
}

/** Scratch for `truncateToTF32`'s bit operation. */
const tf32Word = new Float32Array(1);
const tf32WordBits = new Uint32Array(tf32Word.buffer);

/**
 * tf32 truncation of a float32, as the tensor cores read a float32 operand that was not rounded
 * (wgmma and mma from float32 registers or shared memory): the sign, the exponent and the top 10
 * mantissa bits kept, the low 13 bits cleared (PTX has no instruction for it; the hardware ignores
 * them). The input is taken as a float32 first.
 */
export function truncateToTF32(x: number): number {
  tf32Word[0] = x;
  tf32WordBits[0] = tf32WordBits[0]! & 0xffffe000;
  return tf32Word[0]!;
}

/** The 16-bit float dtypes this module converts. */
export type HalfDType = "float16" | "bfloat16";

export function isHalfDType(dtype: string): dtype is HalfDType {
  return dtype === "float16" || dtype === "bfloat16";
}

/** Rounds to the precision of a 16-bit float dtype. */
export function roundToHalfDType(dtype: HalfDType, x: number): number {
  return dtype === "float16" ? roundToFloat16(x) : roundToBFloat16(x);
}

// The canonical NaNs CUDA's conversions produce.
const FLOAT16_NAN_BITS = 0x7fff;
const BFLOAT16_NAN_BITS = 0x7fff;

/** The float16 bit pattern of `x` after rounding it to float16 (NaN: 0x7fff). */
export function float16Bits(x: number): number {
  if (Number.isNaN(x)) return FLOAT16_NAN_BITS;
  const v = roundToFloat16(x);
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** FLOAT16.minExponent) return sign | (a / 2 ** -24);
  const e = exponentOf(a);
  return sign | ((e + 15) << 10) | (a / 2 ** (e - 10) - 1024);
}

/** The value of a float16 bit pattern (the low 16 bits of `bits`). */
export function float16FromBits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const field = (bits >>> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (field === 0x1f) return fraction === 0 ? sign * Infinity : Number.NaN;
  if (field === 0) return sign * fraction * 2 ** -24;
  return sign * (1024 + fraction) * 2 ** (field - 25);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bfloat16 bit pattern of `x` after rounding it to bfloat16 (NaN: 0x7fff): the high half of its float32. */
export function bfloat16Bits(x: number): number {
  if (Number.isNaN(x)) return BFLOAT16_NAN_BITS;
  f32[0] = roundToBFloat16(x);
  return u32[0]! >>> 16;
}

/** The value of a bfloat16 bit pattern (the low 16 bits of `bits`). */
export function bfloat16FromBits(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}

/** The raw 16-bit patterns of `values` rounded to `dtype` (how a device stores them). */
export function encodeHalfArray(dtype: HalfDType, values: ArrayLike<number>): Uint16Array {
  const toBits = dtype === "float16" ? float16Bits : bfloat16Bits;
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = toBits(values[i]!);
  return out;
}

/** Every 16-bit pattern's value as float32, per dtype, built on first use (256 KiB each). */
const decodeTables = new Map<HalfDType, Float32Array>();

function decodeTableOf(dtype: HalfDType): Float32Array {
  let table = decodeTables.get(dtype);
  if (table === undefined) {
    const fromBits = dtype === "float16" ? float16FromBits : bfloat16FromBits;
    table = new Float32Array(0x10000);
    for (let b = 0; b < 0x10000; b++) table[b] = fromBits(b);
    decodeTables.set(dtype, table);
  }
  return table;
}

/**
 * The values of raw 16-bit patterns of `dtype`, as a Float32Array (the executor's storage of 16-bit
 * floats). A table lookup: decoding each pattern's fields took 80 ns an element, which made a tuning
 * runner's check of a 2048² fp16 operand cost a third of a second.
 */
export function decodeHalfArray(dtype: HalfDType, bits: Uint16Array): Float32Array {
  const table = decodeTableOf(dtype);
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = table[bits[i]!]!;
  return out;
}

/**
 * Rounds `x` to the precision of the scalar float dtype `code`/`bits` (float16, bfloat16, float32;
 * float64 is returned as is). The executor's storage of every float dtype holds only such values.
 */
export function roundToFloatPrecision(code: "float" | "bfloat", bits: number, x: number): number {
  if (code === "bfloat") return roundToBFloat16(x);
  if (bits === 32) return Math.fround(x);
  return bits === 16 ? roundToFloat16(x) : x;
}

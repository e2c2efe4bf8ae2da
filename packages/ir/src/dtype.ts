/**
 * Data types, written as TVM spells them: `int32`, `float32x4`, `bool`, `handle`, and `void` for
 * calls that return nothing; a scalable vector (Arm SVE, RISC-V V) is `float32xvscalex4`, i.e.
 * `vscale × 4` lanes where `vscale` is only known when the program runs.
 *
 * A dtype is kept as its canonical string so that comparison is `===` and printing is free;
 * `dtypeInfo` parses (and caches) the structured form when code needs bits, lanes or the class.
 */
import { IRError } from "./errors.js";

export type DType = string;

/**
 * The narrow float formats of TVM (and DLPack), each a code of its own: the name is the whole
 * scalar spelling (`float8_e4m3fn`), its bits are the leading number.
 */
export const NARROW_FLOAT_FORMATS = [
  "float8_e3m4",
  "float8_e4m3",
  "float8_e4m3b11fnuz",
  "float8_e4m3fn",
  "float8_e4m3fnuz",
  "float8_e5m2",
  "float8_e5m2fnuz",
  "float8_e8m0fnu",
  "float6_e2m3fn",
  "float6_e3m2fn",
  "float4_e2m1fn",
] as const;
export type NarrowFloatFormat = (typeof NARROW_FLOAT_FORMATS)[number];

/** `bfloat` is bfloat16 (TVM's kBFloat); IEEE formats are `float`. */
export type DTypeCode = "int" | "uint" | "float" | "bfloat" | NarrowFloatFormat | "bool" | "handle";

export interface DTypeInfo {
  readonly code: DTypeCode;
  /** Bits of one lane (bool: 1, handle: 64). */
  readonly bits: number;
  /**
   * Lanes of a vector, 1 for a scalar. A scalable vector of `vscale × k` lanes has `lanes = -k`,
   * as TVM's DataType stores it, so that copying a dtype's lanes keeps it scalable; code that needs
   * a lane count must first refuse `isScalableVector`.
   */
  readonly lanes: number;
}

const infoCache = new Map<string, DTypeInfo>();

// Sub-byte integers (int1, int4, …) are TVM dtypes too (packed MMA operands); only 8 bits and up execute.
const INT_BITS = new Set([1, 2, 4, 8, 16, 32, 64]);
const FLOAT_BITS = new Set([16, 32, 64]);
const NARROW_FLOAT_BITS = new Map<string, number>(NARROW_FLOAT_FORMATS.map((f) => [f, Number(/^float(\d+)/.exec(f)![1])]));

/** `float32xvscalex4` → the scalar text and the lanes (-4); other texts unchanged with lanes undefined. */
function splitScalable(text: string): { scalar: string; lanes?: number } {
  const m = /^(.+)xvscalex(\d+)$/.exec(text);
  if (m === null) return { scalar: text };
  const factor = Number(m[2]);
  return { scalar: m[1]!, lanes: -factor };
}

function parseUncached(text: string): DTypeInfo | undefined {
  const { scalar, lanes } = splitScalable(text);
  if (lanes === undefined) return parseFixed(text);
  const info = parseFixed(scalar);
  if (info === undefined || info.lanes !== 1 || info.code === "handle" || !(lanes <= -1)) return undefined;
  return { ...info, lanes };
}

function parseFixed(text: string): DTypeInfo | undefined {
  if (text === "handle") return { code: "handle", bits: 64, lanes: 1 };
  // The type of a call that returns nothing (`T.call_extern("void", ...)`); an opaque handle of no bits.
  if (text === "void") return { code: "handle", bits: 0, lanes: 1 };
  const narrow = /^(float\d+_e\d+m\d+[a-z\d]*?)(?:x(\d+))?$/.exec(text);
  if (narrow !== null) {
    const bits = NARROW_FLOAT_BITS.get(narrow[1]!);
    const lanes = narrow[2] === undefined ? 1 : Number(narrow[2]);
    return bits === undefined || !(lanes >= 1) ? undefined : { code: narrow[1] as NarrowFloatFormat, bits, lanes };
  }
  if (/^bfloat16(x\d+)?$/.test(text)) {
    const lanes = text.length > 8 ? Number(text.slice(9)) : 1;
    return lanes >= 1 ? { code: "bfloat", bits: 16, lanes } : undefined;
  }
  const m = /^(bool|int|uint|float)(\d+)?(?:x(\d+))?$/.exec(text);
  if (!m) return undefined;
  const code = m[1] as "bool" | "int" | "uint" | "float";
  const lanes = m[3] === undefined ? 1 : Number(m[3]);
  if (!(lanes >= 1)) return undefined;
  if (code === "bool") {
    if (m[2] !== undefined && m[2] !== "1") return undefined;
    return { code, bits: 1, lanes };
  }
  if (m[2] === undefined) return undefined;
  const bits = Number(m[2]);
  const allowed = code === "float" ? FLOAT_BITS : INT_BITS;
  if (!allowed.has(bits)) return undefined;
  return { code, bits, lanes };
}

/** The last dtype asked about: most calls in a row ask about the same one. */
let lastDType: DType | undefined;
let lastInfo: DTypeInfo | undefined;

/** Returns the structured form of a dtype, or throws an IRError naming the bad text. */
export function dtypeInfo(dtype: DType): DTypeInfo {
  if (dtype === lastDType) return lastInfo!;
  let info = infoCache.get(dtype);
  if (info === undefined) {
    info = parseUncached(dtype);
    if (info === undefined) {
      throw new IRError(
        `unknown dtype "${dtype}": expected bool, int1/2/4/8/16/32/64, uint1/…/64, float16/32/64, bfloat16, ${NARROW_FLOAT_FORMATS.join("/")} or handle, optionally with lanes such as float32x4 or float32xvscalex4`,
      );
    }
    infoCache.set(dtype, info);
  }
  lastDType = dtype;
  lastInfo = info;
  return info;
}

export function isValidDType(text: string): boolean {
  return infoCache.has(text) || parseUncached(text) !== undefined;
}

/** Canonical spelling: validates and returns the dtype string (e.g. `bool1` → `bool`). */
export function dtype(text: string): DType {
  const info = dtypeInfo(text);
  return makeDType(info.code, info.bits, info.lanes);
}

/** The dtype of `code`/`bits` with `lanes` lanes (negative: `vscale × -lanes`, see `DTypeInfo.lanes`). */
export function makeDType(code: DTypeCode, bits: number, lanes = 1): DType {
  const base = code === "bool" ? "bool" : code === "handle" ? (bits === 0 ? "void" : "handle") : NARROW_FLOAT_BITS.has(code) ? code : `${code}${bits}`;
  if (lanes === 1) return base;
  return lanes < 0 ? `${base}xvscalex${-lanes}` : `${base}x${lanes}`;
}

/** Whether `t` is a scalable vector (`float32xvscalex4`): its lane count is a multiple of vscale. */
export const isScalableVector = (t: DType): boolean => dtypeInfo(t).lanes < 0;

/** How TVMScript writes a lanes value: `4`, or `T.vscale() * 4` for a scalable one. */
export function lanesText(lanes: number): string {
  return lanes < 0 ? `T.vscale() * ${-lanes}` : String(lanes);
}

export const isInt = (t: DType): boolean => dtypeInfo(t).code === "int";
export const isUInt = (t: DType): boolean => dtypeInfo(t).code === "uint";
/** Signed or unsigned integer (not bool). */
export const isIntegral = (t: DType): boolean => {
  const c = dtypeInfo(t).code;
  return c === "int" || c === "uint";
};
/** Any floating-point format: IEEE `float`, `bfloat16` and the narrow float8/6/4 formats. */
export const isFloatCode = (code: DTypeCode): boolean => code === "float" || code === "bfloat" || NARROW_FLOAT_BITS.has(code);
export const isFloat = (t: DType): boolean => isFloatCode(dtypeInfo(t).code);
export const isBool = (t: DType): boolean => dtypeInfo(t).code === "bool";
export const isHandle = (t: DType): boolean => dtypeInfo(t).code === "handle";
export const lanesOf = (t: DType): number => dtypeInfo(t).lanes;
export const bitsOf = (t: DType): number => dtypeInfo(t).bits;

/** The scalar element type of a vector dtype (`float32x4` → `float32`). */
export function elementType(t: DType): DType {
  const i = dtypeInfo(t);
  return makeDType(i.code, i.bits, 1);
}

export function withLanes(t: DType, lanes: number): DType {
  const i = dtypeInfo(t);
  return makeDType(i.code, i.bits, lanes);
}

/** Size of one element in bytes (bool counts as one byte, as in TVM buffers). */
export function bytesOf(t: DType): number {
  const i = dtypeInfo(t);
  return Math.max(1, i.bits / 8) * i.lanes;
}

/** Smallest and largest value representable by an integer dtype (as JS numbers; 64-bit ones are approximate). */
export function intRange(t: DType): { min: number; max: number } {
  const i = dtypeInfo(t);
  if (i.code === "bool") return { min: 0, max: 1 };
  if (i.code === "uint") return { min: 0, max: 2 ** i.bits - 1 };
  if (i.code === "int") return { min: -(2 ** (i.bits - 1)), max: 2 ** (i.bits - 1) - 1 };
  throw new IRError(`intRange: ${t} is not an integer dtype`);
}

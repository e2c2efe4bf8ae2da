/**
 * Constant folding. Integers fold as mathematical integers (no wraparound), except that division
 * by zero is never folded. Float results are rounded to the operand precision (`Math.fround` for
 * float32; double rounding through float64 is exact for + - * / of float32 inputs); float16
 * arithmetic is never folded, casts to float16 are (one rounding, ties to even).
 */
import { type DType, bitsOf, dtypeInfo } from "../dtype.js";
import { type BinaryOp, type PrimExpr, boolImm, constant, intImm } from "../expr.js";
import { roundToFloat16 } from "../exec/half-precision.js";
import { dtypeBound } from "./intBound.js";

export { gcdInt } from "./gcd.js";

export function floorDivInt(a: number, b: number): number {
  return Math.floor(a / b) + 0;
}

export function floorModInt(a: number, b: number): number {
  return a - Math.floor(a / b) * b + 0;
}

export function truncDivInt(a: number, b: number): number {
  return Math.trunc(a / b) + 0;
}

export function truncModInt(a: number, b: number): number {
  return a - Math.trunc(a / b) * b + 0;
}

/** Rounds a JS number to the precision of a float dtype, or undefined when that is not exact here. */
function roundToFloat(value: number, dt: DType): number | undefined {
  const bits = bitsOf(dt);
  if (bits === 32) return Math.fround(value);
  if (bits === 64) return value;
  return undefined;
}

function compare(op: BinaryOp, a: number, b: number): boolean | undefined {
  switch (op) {
    case "eq":
      return a === b;
    case "ne":
      return a !== b;
    case "lt":
      return a < b;
    case "le":
      return a <= b;
    case "gt":
      return a > b;
    case "ge":
      return a >= b;
    default:
      return undefined;
  }
}

function foldIntArith(op: BinaryOp, a: number, b: number): number | undefined {
  switch (op) {
    case "add":
      return a + b;
    case "sub":
      return a - b;
    case "mul":
      return a * b;
    case "div":
      return b === 0 ? undefined : truncDivInt(a, b);
    case "mod":
      return b === 0 ? undefined : truncModInt(a, b);
    case "floordiv":
      return b === 0 ? undefined : floorDivInt(a, b);
    case "floormod":
      return b === 0 ? undefined : floorModInt(a, b);
    case "min":
      return Math.min(a, b);
    case "max":
      return Math.max(a, b);
    default:
      return undefined;
  }
}

function foldFloatArith(op: BinaryOp, a: number, b: number, dt: DType): number | undefined {
  const x = roundToFloat(a, dt);
  const y = roundToFloat(b, dt);
  if (x === undefined || y === undefined) return undefined;
  switch (op) {
    case "add":
      return roundToFloat(x + y, dt);
    case "sub":
      return roundToFloat(x - y, dt);
    case "mul":
      return roundToFloat(x * y, dt);
    case "div":
      return roundToFloat(x / y, dt);
    case "floordiv": {
      const q = roundToFloat(x / y, dt);
      return q === undefined ? undefined : Math.floor(q);
    }
    case "min":
    case "max":
      // C's fmin/fmax and JS's Math.min/max disagree on NaN; only fold ordinary numbers.
      if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
      return op === "min" ? Math.min(x, y) : Math.max(x, y);
    default:
      return undefined;
  }
}

/**
 * `a op b` on integers, with C's semantics (truncating `div`/`mod`, flooring `floordiv`/`floormod`),
 * comparisons and logical operators giving 1 or 0; undefined for a division by zero or an
 * operator that has no integer meaning.
 */
export function evalIntBinary(op: BinaryOp, a: number, b: number): number | undefined {
  const cmp = compare(op, a, b);
  if (cmp !== undefined) return cmp ? 1 : 0;
  if (op === "and") return a !== 0 && b !== 0 ? 1 : 0;
  if (op === "or") return a !== 0 || b !== 0 ? 1 : 0;
  return foldIntArith(op, a, b);
}

/** Folds `a op b` when both are scalar constants; undefined when it cannot or must not fold. */
export function foldBinaryConstants(op: BinaryOp, a: PrimExpr, b: PrimExpr, resultType: DType): PrimExpr | undefined {
  if ((a.kind !== "IntImm" && a.kind !== "FloatImm") || (b.kind !== "IntImm" && b.kind !== "FloatImm")) return undefined;
  if (dtypeInfo(a.dtype).lanes !== 1) return undefined;
  const isFloatOperand = a.kind === "FloatImm";
  if (op === "and") return boolImm(a.value !== 0 && b.value !== 0);
  if (op === "or") return boolImm(a.value !== 0 || b.value !== 0);
  if (isFloatOperand) {
    const x = roundToFloat(a.value, a.dtype);
    const y = roundToFloat(b.value, b.dtype);
    const cmp = x === undefined || y === undefined ? undefined : compare(op, x, y);
    if (cmp !== undefined) return boolImm(cmp);
    const v = foldFloatArith(op, a.value, b.value, resultType);
    return v === undefined ? undefined : constant(v, resultType);
  }
  const cmp = compare(op, a.value, b.value);
  if (cmp !== undefined) return boolImm(cmp);
  const v = foldIntArith(op, a.value, b.value);
  if (v === undefined) return undefined;
  const wrapped = dtypeInfo(resultType).code === "uint" ? wrapUnsigned(v, bitsOf(resultType)) : v;
  // `+ 0` turns a -0 (from trunc or a negative product) into 0: integers have no signed zero.
  return wrapped === undefined ? undefined : intImm(wrapped + 0, resultType);
}

/** `v` modulo 2^bits (unsigned arithmetic wraps); undefined where a double cannot hold it exactly. */
function wrapUnsigned(v: number, bits: number): number | undefined {
  if (!Number.isSafeInteger(v)) return undefined;
  if (v >= 0 && v < 2 ** bits) return v;
  if (bits > 32) return undefined;
  const m = 2 ** bits;
  return ((v % m) + m) % m;
}

/** Folds a cast of a scalar constant when the result is exact; undefined otherwise. */
export function foldCastConstant(target: DType, value: PrimExpr): PrimExpr | undefined {
  if (value.kind !== "IntImm" && value.kind !== "FloatImm") return undefined;
  const info = dtypeInfo(target);
  if (info.lanes !== 1 || dtypeInfo(value.dtype).lanes !== 1) return undefined;
  if (info.code === "bool") return boolImm(value.value !== 0);
  if (info.code === "float") {
    // A cast rounds once, so half precision folds exactly too (arithmetic in it does not here).
    const v = info.bits === 16 ? roundToFloat16(value.value) : roundToFloat(value.value, target);
    // A finite value past the target's range becomes an infinity at run time; leave that cast there.
    return v === undefined || (Number.isFinite(value.value) && !Number.isFinite(v)) ? undefined : constant(v, target);
  }
  if (info.code === "int" || info.code === "uint") {
    if (Number.isNaN(value.value) || !Number.isFinite(value.value)) return undefined;
    const v = Math.trunc(value.value) + 0;
    const range = dtypeBound(target);
    // Out-of-range casts wrap (or are undefined for floats): leave them to run time.
    if (v < range.min || v > range.max) return undefined;
    return intImm(v, target);
  }
  return undefined;
}

/**
 * JS snippets for dtype-exact scalar arithmetic. Every function takes operand snippets that are
 * atoms (identifiers, literals, calls, member accesses) or parenthesised expressions, and returns
 * one of those again, so snippets compose without precedence surprises.
 *
 * Conventions of the generated code: `fround` and `imul` are `Math.fround`/`Math.imul`; helpers
 * from `runtime.ts` are bound to `$`-prefixed names (see `RUNTIME_PRELUDE`).
 */
import { type DType, dtypeInfo } from "../dtype.js";
import type { BinaryOp } from "../expr.js";
import { ExecutionError } from "./errors.js";

/** Declarations that every generated function body starts with. */
export const RUNTIME_PRELUDE = [
  "const fround = Math.fround;",
  "const imul = Math.imul;",
  "const { divTrunc: $divTrunc, modTrunc: $modTrunc, divFloor: $divFloor, modFloor: $modFloor, " +
    "toFloat16: $f16, toBFloat16: $bf16, toTF32: $tf32, truncateTF32: $tf32Truncate, roundHalfAway: $roundHalfAway, select: $select, outOfBounds: $oob, " +
    "floorModF16: $floorModF16, floorModBF16: $floorModBF16, floorModF32: $floorModF32, floorModF64: $floorModF64, assertFailed: $assertFailed } = $rt;",
];

/** Rounds a float result to the precision of `dt` (float32, float16, bfloat16: after every operation). */
export function roundToFloat(dt: DType, js: string): string {
  const { code, bits } = dtypeInfo(dt);
  if (code === "bfloat") return `$bf16(${js})`;
  if (bits === 32) return `fround(${js})`;
  if (bits === 16) return `$f16(${js})`;
  return `(${js})`;
}

/** IEEE floats and bfloat16: the float formats the executor computes with. */
function isExecutableFloat(code: string): boolean {
  return code === "float" || code === "bfloat";
}

/**
 * Brings an integer computed exactly (as a double) into the range of `dt` by two's-complement
 * wrapping. 64-bit integers are not wrapped: they are exact JS numbers up to 2^53.
 */
export function wrapInteger(dt: DType, js: string): string {
  const { code, bits } = dtypeInfo(dt);
  if (bits === 64) return js;
  if (code === "int") {
    if (bits === 32) return `(${js} | 0)`;
    return `(${js} << ${32 - bits} >> ${32 - bits})`;
  }
  if (bits === 32) return `(${js} >>> 0)`;
  return `(${js} & ${2 ** bits - 1})`;
}

const COMPARE_JS: Partial<Record<BinaryOp, string>> = { eq: "===", ne: "!==", lt: "<", le: "<=", gt: ">", ge: ">=" };
const ARITH_JS: Partial<Record<BinaryOp, string>> = { add: "+", sub: "-", mul: "*", div: "/" };

/**
 * `a op b` where both operands have the scalar dtype `dt`. `divisionSite` is the error-site index
 * reported if an integer division by zero happens.
 */
export function emitBinaryOp(op: BinaryOp, dt: DType, a: string, b: string, divisionSite: () => number): string {
  const compare = COMPARE_JS[op];
  if (compare !== undefined) return `(${a} ${compare} ${b})`;
  if (op === "and") return `(${a} && ${b})`;
  if (op === "or") return `(${a} || ${b})`;
  if (op === "min") return `Math.min(${a}, ${b})`;
  if (op === "max") return `Math.max(${a}, ${b})`;
  const { code, bits } = dtypeInfo(dt);
  if (isExecutableFloat(code)) return emitFloatArith(op, dt, a, b);
  if (code !== "int" && code !== "uint") {
    throw new ExecutionError(`arithmetic operator ${op} on dtype ${dt} is not supported`);
  }
  switch (op) {
    case "add":
    case "sub":
      return wrapInteger(dt, `${a} ${ARITH_JS[op]} ${b}`);
    case "mul":
      if (bits === 32) return code === "int" ? `imul(${a}, ${b})` : `(imul(${a}, ${b}) >>> 0)`;
      return wrapInteger(dt, `${a} * ${b}`);
    case "div":
    case "mod":
    case "floordiv":
    case "floormod":
      return emitIntegerDivision(op, dt, a, b, divisionSite);
    default:
      throw new ExecutionError(`unexpected operator ${op}`);
  }
}

/** The runtime helper of each integer division (it checks for a zero divisor). */
const DIVISION_HELPER = { div: "$divTrunc", mod: "$modTrunc", floordiv: "$divFloor", floormod: "$modFloor" } as const;

/**
 * An integer division. By a positive integer literal it cannot divide by zero, so it is computed
 * in place with the helpers' own formulas (`+ 0` turns -0 into 0 as they do) instead of a call:
 * index arithmetic is full of `floordiv(i, 4)` and `floormod(i, 32)`, and V8 did not always inline
 * the helper. `(a % c + c) % c` is `a % c` moved into [0, c) (never -0): exact for divisors below
 * 2^50 (at most 15 digits) and the integers a double holds.
 */
function emitIntegerDivision(op: keyof typeof DIVISION_HELPER, dt: DType, a: string, b: string, divisionSite: () => number): string {
  const quotient = op === "div" || op === "floordiv";
  if (!/^[1-9]\d{0,14}$/.test(b)) {
    const call = `${DIVISION_HELPER[op]}(${a}, ${b}, ${divisionSite()})`;
    return quotient ? wrapInteger(dt, call) : call;
  }
  switch (op) {
    case "div":
      return wrapInteger(dt, `(Math.trunc(${a} / ${b}) + 0)`);
    case "floordiv":
      return wrapInteger(dt, `(Math.floor(${a} / ${b}) + 0)`);
    case "mod":
      return `((${a} % ${b}) + 0)`;
    case "floormod":
      return `(((${a} % ${b}) + ${b}) % ${b})`;
  }
}

function emitFloatArith(op: BinaryOp, dt: DType, a: string, b: string): string {
  switch (op) {
    case "add":
    case "sub":
    case "mul":
    case "div":
      return roundToFloat(dt, `${a} ${ARITH_JS[op]} ${b}`);
    case "mod":
      // JS `%` on numbers is C's fmod, whose result is exact in the operands' precision.
      return `(${a} % ${b})`;
    case "floordiv":
      return `Math.floor(${roundToFloat(dt, `${a} / ${b}`)})`;
    case "floormod":
      return dtypeInfo(dt).code === "bfloat" ? `$floorModBF16(${a}, ${b})` : `$floorModF${dtypeInfo(dt).bits}(${a}, ${b})`;
    default:
      throw new ExecutionError(`unexpected operator ${op}`);
  }
}

/** Converts a value of scalar dtype `from` to scalar dtype `to` (C semantics: float→int truncates). */
export function emitCast(from: DType, to: DType, js: string): string {
  if (from === to) return js;
  const src = dtypeInfo(from);
  const dst = dtypeInfo(to);
  if (dst.code === "bool") return src.code === "bool" ? js : `(${js} !== 0)`;
  const numeric = src.code === "bool" ? `(${js} ? 1 : 0)` : js;
  if (isExecutableFloat(dst.code)) return dst.bits === 64 || src.code === "bool" ? numeric : roundToFloat(to, numeric);
  if (dst.code !== "int" && dst.code !== "uint") throw new ExecutionError(`cannot cast ${from} to ${to}`);
  if (dst.bits === 64) return isExecutableFloat(src.code) ? `Math.trunc(${numeric})` : numeric;
  // ToInt32 inside the wrapping operators truncates floats toward zero and wraps integers.
  return wrapInteger(to, numeric);
}

const UNARY_MATH_JS: Readonly<Record<string, string>> = {
  exp: "Math.exp",
  log: "Math.log",
  sqrt: "Math.sqrt",
  tanh: "Math.tanh",
  floor: "Math.floor",
  ceil: "Math.ceil",
  trunc: "Math.trunc",
  sin: "Math.sin",
  cos: "Math.cos",
  tan: "Math.tan",
  asin: "Math.asin",
  acos: "Math.acos",
  atan: "Math.atan",
  sinh: "Math.sinh",
  cosh: "Math.cosh",
  asinh: "Math.asinh",
  acosh: "Math.acosh",
  atanh: "Math.atanh",
  log2: "Math.log2",
  log10: "Math.log10",
  log1p: "Math.log1p",
  expm1: "Math.expm1",
};

/** Binary float math as JS; JS's `%` on floats is C's fmod. */
const BINARY_MATH_JS: Readonly<Record<string, (a: string, b: string) => string>> = {
  fmod: (a, b) => `(${a} % ${b})`,
  atan2: (a, b) => `Math.atan2(${a}, ${b})`,
  hypot: (a, b) => `Math.hypot(${a}, ${b})`,
};

/** A call of a built-in operator (except `if_then_else`, which the expression emitter makes lazy). */
export function emitIntrinsic(op: string, dt: DType, args: readonly string[]): string {
  const a = args[0] ?? "undefined";
  const fn = UNARY_MATH_JS[op];
  if (fn !== undefined) return roundToFloat(dt, `${fn}(${a})`);
  const binaryMath = BINARY_MATH_JS[op];
  if (binaryMath !== undefined) return roundToFloat(dt, binaryMath(a, args[1] ?? "undefined"));
  switch (op) {
    case "exp2":
      return roundToFloat(dt, `Math.pow(2, ${a})`);
    case "exp10":
      return roundToFloat(dt, `Math.pow(10, ${a})`);
    case "isnan":
      return `Number.isNaN(${a})`;
    case "isinf":
      return `(Math.abs(${a}) === Infinity)`;
    case "isfinite":
      return `Number.isFinite(${a})`;
    case "popcount":
    case "clz":
      return emitBitCount(op, dt, a);
    case "sigmoid": {
      const e = roundToFloat(dt, `Math.exp(-${a})`);
      return roundToFloat(dt, `1 / ${roundToFloat(dt, `1 + ${e}`)}`);
    }
    case "round":
      return `$roundHalfAway(${a})`;
    case "fabs":
      return isExecutableFloat(dtypeInfo(dt).code) ? `Math.abs(${a})` : wrapInteger(dt, `Math.abs(${a})`);
    case "pow":
      return roundToFloat(dt, `Math.pow(${a}, ${args[1] ?? "undefined"})`);
    case "rsqrt":
      return roundToFloat(dt, `1 / ${roundToFloat(dt, `Math.sqrt(${a})`)}`);
    case "tf32_round":
      return `$tf32(${a})`;
    case "tf32_truncate":
      return `$tf32Truncate(${a})`;
    case "tvm_storage_sync":
      return "0";
    case "shift_left":
    case "shift_right":
    case "bitwise_and":
    case "bitwise_or":
    case "bitwise_xor":
    case "bitwise_not":
      return emitBitwise(op, dt, args);
    default:
      throw new ExecutionError(`the CPU executor does not implement the intrinsic T.${op}`);
  }
}

/** `T.popcount` / `T.clz` on integers up to 32 bits, counted within the dtype's width. */
function emitBitCount(op: "popcount" | "clz", dt: DType, a: string): string {
  const { bits } = dtypeInfo(dt);
  if (bits > 32) throw new ExecutionError(`the CPU executor does not implement T.${op} on ${dt}`);
  const masked = bits === 32 ? `(${a} >>> 0)` : `(${a} & ${2 ** bits - 1})`;
  if (op === "clz") return `(Math.clz32(${masked}) - ${32 - bits})`;
  return `((x) => { let c = 0; for (; x !== 0; x = (x & (x - 1)) >>> 0) c++; return c; })(${masked})`;
}

const BITWISE_JS: Readonly<Record<string, string>> = {
  shift_left: "<<",
  shift_right: ">>",
  bitwise_and: "&",
  bitwise_or: "|",
  bitwise_xor: "^",
};

/**
 * Integer bit operations. Up to 32 bits JS's int32 operators do the work (`>>>` shifts unsigned
 * values in); 64-bit integers go through BigInt, since JS's operators would cut them to 32 bits.
 * Shifting by more than the width is undefined in C and TVM; here the count is not masked.
 */
function emitBitwise(op: string, dt: DType, args: readonly string[]): string {
  const { code, bits } = dtypeInfo(dt);
  const [a, b] = [args[0] ?? "undefined", args[1] ?? "undefined"];
  if (code === "bool") return `((${a} ${BITWISE_JS[op]!} ${b}) !== 0)`;
  if (bits === 64) {
    const wrap = code === "uint" ? "BigInt.asUintN" : "BigInt.asIntN";
    const big = op === "bitwise_not" ? `~BigInt(${a})` : `BigInt(${a}) ${BITWISE_JS[op]!} BigInt(${b})`;
    return `Number(${wrap}(64, ${big}))`;
  }
  if (op === "bitwise_not") return wrapInteger(dt, `(~${a})`);
  const token = op === "shift_right" && code === "uint" ? ">>>" : BITWISE_JS[op]!;
  return wrapInteger(dt, `(${a} ${token} ${b})`);
}

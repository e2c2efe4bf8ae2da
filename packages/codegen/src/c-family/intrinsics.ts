/**
 * The C spelling of TensorIR's scalar intrinsics, shared by the C and CUDA generators (both speak
 * C; they differ only where a function exists in one of them, such as CUDA's `rsqrtf`).
 */
import type { DType } from "@tessera/ir";
import { float32Literal, float64Literal } from "./literals.js";

export type CDialect = "c" | "cuda";

/** Float math with a float32 name and a float64 name, as in <math.h> and CUDA's math API. */
const FLOAT_MATH: Readonly<Record<string, readonly [string, string]>> = {
  exp: ["expf", "exp"],
  log: ["logf", "log"],
  sqrt: ["sqrtf", "sqrt"],
  tanh: ["tanhf", "tanh"],
  floor: ["floorf", "floor"],
  ceil: ["ceilf", "ceil"],
  round: ["roundf", "round"],
  trunc: ["truncf", "trunc"],
  fabs: ["fabsf", "fabs"],
  pow: ["powf", "pow"],
};

/** Integer bit operations and their C operators (TVM's `shift_right` on a signed value is arithmetic, as gcc's and nvcc's `>>`). */
const BITWISE_OPERATORS: Readonly<Record<string, string>> = {
  shift_left: "<<",
  shift_right: ">>",
  bitwise_and: "&",
  bitwise_or: "|",
  bitwise_xor: "^",
};

const INTEGER_DTYPES = new Set<DType>(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]);

/** What went wrong, for the calling generator to report in its own error type with its location. */
export class IntrinsicSpellingError extends Error {}

/**
 * The C text of intrinsic `op` applied to already printed arguments `args`, whose first operand
 * has element type `operandType`; throws IntrinsicSpellingError for an intrinsic or operand type
 * the dialect cannot express.
 */
export function spellIntrinsic(dialect: CDialect, op: string, operandType: DType, args: readonly string[]): string {
  const [a, b, c] = args;
  // C's conditional operator evaluates only the chosen side, as TVM's if_then_else requires.
  if (op === "if_then_else") return `(${a} ? ${b} : ${c})`;
  if (op === "likely") return dialect === "c" ? `__builtin_expect(!!(${a}), 1)` : `(${a})`;
  // An assumption only informs the simplifier; what is left of it in generated code is "true".
  if (op === "assume") return "1";
  if (op === "fabs" && operandType === "int32") return `abs(${a})`;
  if (op === "fabs" && operandType === "int64") return `llabs(${a})`;
  const bitwise = BITWISE_OPERATORS[op];
  if (bitwise !== undefined || op === "bitwise_not") {
    if (!INTEGER_DTYPES.has(operandType)) throw new IntrinsicSpellingError(`T.${op} needs integer operands, not ${operandType}`);
    return op === "bitwise_not" ? `(~${a})` : `(${a} ${bitwise} ${b})`;
  }
  if (op === "sigmoid") {
    requireFloat(op, operandType);
    const one = operandType === "float32" ? float32Literal(1) : float64Literal(1);
    return `(${one} / (${one} + ${operandType === "float32" ? "expf" : "exp"}((-${a}))))`;
  }
  if (op === "rsqrt") {
    requireFloat(op, operandType);
    if (dialect === "cuda") return `${operandType === "float32" ? "rsqrtf" : "rsqrt"}(${a})`;
    return operandType === "float32" ? `(1.0f / sqrtf(${a}))` : `(1.0 / sqrt(${a}))`;
  }
  const names = FLOAT_MATH[op];
  if (names === undefined) throw new IntrinsicSpellingError(`the intrinsic T.${op} has no ${dialect === "c" ? "C" : "CUDA"} translation`);
  requireFloat(op, operandType);
  return `${operandType === "float32" ? names[0] : names[1]}(${args.join(", ")})`;
}

function requireFloat(op: string, operandType: DType): void {
  if (operandType !== "float32" && operandType !== "float64") {
    throw new IntrinsicSpellingError(`T.${op} on ${operandType} operands is not supported (float32 and float64 only)`);
  }
}

/**
 * C text of scalar TensorIR expressions: every binary operation parenthesised, float32 literals
 * as `1.000000e+00f`, integer floor division/modulo through inline helpers unless both sides are
 * provably non-negative (then C's `/` and `%` agree with them).
 */
import { type BinaryOp, type Call, type DType, type PrimExpr, type Var, elementType, lanesOf } from "@tessera/ir";
import type { IndexFacts } from "../c-family/index-facts.js";
import { float32Literal, float64Literal } from "../c-family/literals.js";
import { C_OPERATORS } from "../c-family/operators.js";
import { IntrinsicSpellingError, spellIntrinsic } from "../c-family/intrinsics.js";
import { cScalarType, SUPPORTED_C_DTYPES } from "./ctypes.js";

/** What the expression printer needs from the statement printer. */
export interface ExprScope {
  readonly facts: IndexFacts;
  /** The C name of a variable in scope, or undefined. */
  nameOf(v: Var): string | undefined;
  /** The C name of the storage behind a buffer's data variable, or undefined. */
  storageOf(data: Var): string | undefined;
  fail(detail: string): never;
}

export class CExprPrinter {
  private readonly letText = new Map<Var, string>();

  constructor(private readonly scope: ExprScope) {}

  cType(dtype: DType, what: string): string {
    const t = cScalarType(dtype);
    if (t === undefined) this.scope.fail(`${what} has dtype ${dtype}, which the C generator does not support (supported: ${SUPPORTED_C_DTYPES})`);
    return t;
  }

  expr(e: PrimExpr): string {
    if (lanesOf(e.dtype) > 1) {
      this.scope.fail(`a ${e.dtype} vector expression; the C target vectorizes loops with #pragma omp simd and expects scalar code`);
    }
    switch (e.kind) {
      case "IntImm":
        return this.intLiteral(e.value, e.dtype);
      case "FloatImm":
        return this.floatLiteral(e.value, e.dtype);
      case "StringImm":
        return this.scope.fail(`the string "${e.value}" cannot be a value in C code`);
      case "Var": {
        const text = this.letText.get(e) ?? this.scope.nameOf(e);
        if (text === undefined) this.scope.fail(`variable ${e.name} is used but is not a parameter, loop variable or let binding`);
        return text;
      }
      case "Binary":
        return this.binary(e.op, e.a, e.b);
      case "Not":
        return `(!${this.expr(e.a)})`;
      case "Select":
        return `(${this.expr(e.condition)} ? ${this.expr(e.trueValue)} : ${this.expr(e.falseValue)})`;
      case "Cast":
        return `((${this.cType(e.dtype, "a cast")})${this.expr(e.value)})`;
      case "BufferLoad":
        return `${this.access(e.buffer, e.indices)}`;
      case "Let": {
        this.letText.set(e.variable, this.expr(e.value));
        try {
          return this.expr(e.body);
        } finally {
          this.letText.delete(e.variable);
        }
      }
      case "Call":
        return this.call(e);
      case "Ramp":
      case "Broadcast":
        return this.scope.fail(`a ${e.kind} expression; the C target expects scalar code`);
    }
  }

  /** `name[index]` for a flat buffer access. */
  access(buffer: { readonly name: string; readonly data: Var; readonly elemOffset: PrimExpr }, indices: readonly PrimExpr[]): string {
    if (indices.length !== 1) this.scope.fail(`buffer ${buffer.name} is accessed with ${indices.length} indices; lowered code uses flat buffers`);
    const storage = this.scope.storageOf(buffer.data);
    if (storage === undefined) this.scope.fail(`buffer ${buffer.name} is neither a parameter nor allocated in the function`);
    const offset = buffer.elemOffset.kind === "IntImm" && buffer.elemOffset.value === 0 ? "" : `${this.expr(buffer.elemOffset)} + `;
    return `${storage}[${offset}${this.expr(indices[0]!)}]`;
  }

  intLiteral(value: number, dtype: DType): string {
    const t = this.cType(dtype, `the constant ${value}`);
    if (t === "bool") return value !== 0 ? "true" : "false";
    if (t === "int32_t") return value === -2147483648 ? "(-2147483647 - 1)" : String(value);
    if (t === "int64_t") return `INT64_C(${value})`;
    if (t === "uint64_t") return `UINT64_C(${value})`;
    return `((${t})${value})`;
  }

  floatLiteral(value: number, dtype: DType): string {
    const f32 = dtype === "float32";
    if (!f32 && dtype !== "float64") this.scope.fail(`the constant ${value} has dtype ${dtype}, which the C generator does not support`);
    if (Number.isNaN(value)) return f32 ? '__builtin_nanf("")' : '__builtin_nan("")';
    if (value === Infinity) return f32 ? "__builtin_inff()" : "__builtin_inf()";
    if (value === -Infinity) return f32 ? "(-__builtin_inff())" : "(-__builtin_inf())";
    return f32 ? float32Literal(value) : float64Literal(value);
  }

  private binary(op: BinaryOp, a: PrimExpr, b: PrimExpr): string {
    const at = this.expr(a);
    const bt = this.expr(b);
    const dtype = a.dtype;
    const float = dtype === "float32" || dtype === "float64";
    const suffix = dtype === "float32" ? "f" : "";
    switch (op) {
      case "mod":
        return float ? `fmod${suffix}(${at}, ${bt})` : `(${at} % ${bt})`;
      case "floordiv":
        if (float) return `floor${suffix}((${at} / ${bt}))`;
        return this.nonNegativeDivision(a, b) ? `(${at} / ${bt})` : `${this.intHelper("floordiv", dtype)}(${at}, ${bt})`;
      case "floormod":
        if (float) return `(${at} - (floor${suffix}((${at} / ${bt})) * ${bt}))`;
        return this.nonNegativeDivision(a, b) ? `(${at} % ${bt})` : `${this.intHelper("floormod", dtype)}(${at}, ${bt})`;
      case "min":
      case "max":
        // Floats too through a compare-and-select helper: it vectorizes to vminps/vmaxps, where
        // fminf/fmaxf (NaN-aware) stay scalar library calls without -ffast-math.
        return float ? `tessera_${op}_${dtype === "float32" ? "f32" : "f64"}(${at}, ${bt})` : `${this.intHelper(op, dtype)}(${at}, ${bt})`;
      default: {
        const symbol = C_OPERATORS[op];
        if (symbol === undefined) this.scope.fail(`unknown binary operator ${op}`);
        return `(${at} ${symbol} ${bt})`;
      }
    }
  }

  private nonNegativeDivision(a: PrimExpr, b: PrimExpr): boolean {
    return this.scope.facts.isNonNegative(a) && this.scope.facts.isPositive(b);
  }

  /** `tessera_floordiv_i32`, … (defined in the preamble for int32 and int64). */
  private intHelper(op: string, dtype: DType): string {
    if (dtype !== "int32" && dtype !== "int64") this.scope.fail(`${op} of ${dtype} operands is not supported (int32, int64 and floats only)`);
    return `tessera_${op}_${dtype === "int32" ? "i32" : "i64"}`;
  }

  private call(e: Call): string {
    const args = e.args;
    const argType = args[0]?.dtype ?? e.dtype;
    try {
      return spellIntrinsic(
        "c",
        e.op,
        elementType(argType),
        args.map((a) => this.expr(a)),
      );
    } catch (err) {
      if (err instanceof IntrinsicSpellingError) this.scope.fail(err.message);
      throw err;
    }
  }
}

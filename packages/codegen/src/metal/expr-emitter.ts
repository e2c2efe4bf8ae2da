/**
 * MSL text of TensorIR expressions. Metal is C++: operators and casts as in CUDA C, but its math
 * library is overloaded (`exp`, `min`, `fabs` for float and half alike), there is no double, and
 * non-finite constants are `as_type<float>` of their bits. Vectors are written lane by lane.
 */
import { type BinaryOp, type BufferLoad, type Call, type DType, type PrimExpr, type Ramp, type Var, elementType, lanesOf } from "@tessera/ir";
import { float32Literal } from "../c-family/literals.js";
import { C_OPERATORS } from "../c-family/operators.js";
import type { IndexFacts } from "../c-family/index-facts.js";
import type { NameTable } from "../c-family/names.js";
import { ShaderCodegenError } from "../shader/errors.js";
import { LetTexts, flatStorage } from "../shader/kernel-parts.js";
import { SUPPORTED_METAL_DTYPES, metalTypeOf } from "./types.js";

export interface MetalContext {
  readonly kernelName: string;
  readonly names: NameTable;
  readonly facts: IndexFacts;
  /** Whether the floor-division helpers are used. */
  floorDivision: boolean;
  readonly storage: Map<Var, { readonly name: string; readonly dtype: DType }>;
  /** Thread indices (`((int)threadIdx.x)`) and scalar parameters (`args.n`). */
  readonly predefined: Map<Var, string>;
}

export function fail(ctx: MetalContext, detail: string): never {
  throw new ShaderCodegenError("Metal", ctx.kernelName, detail);
}

const FLOAT_MATH = new Set(["exp", "log", "sqrt", "tanh", "floor", "ceil", "round", "trunc", "fabs", "pow", "rsqrt"]);
const BITWISE: Readonly<Record<string, string>> = { shift_left: "<<", shift_right: ">>", bitwise_and: "&", bitwise_or: "|", bitwise_xor: "^" };
const NON_FINITE_BITS: Readonly<Record<string, string>> = { inf: "0x7f800000u", "-inf": "0xff800000u", nan: "0x7fc00000u" };

export class MetalExprEmitter {
  private readonly lets = new LetTexts();

  constructor(private readonly ctx: MetalContext) {}

  type(dtype: DType, what: string): string {
    const t = metalTypeOf(dtype);
    if (t === undefined) fail(this.ctx, `${what} has dtype ${dtype}, which Metal cannot express (supported: ${SUPPORTED_METAL_DTYPES})`);
    return t;
  }

  expr(e: PrimExpr): string {
    if (lanesOf(e.dtype) > 1) return this.vector(e);
    switch (e.kind) {
      case "IntImm": {
        const t = this.type(e.dtype, `the constant ${e.value}`);
        if (t === "bool") return e.value !== 0 ? "true" : "false";
        return t === "int" ? String(e.value) : `((${t})${e.value})`;
      }
      case "FloatImm":
        return this.floatLiteral(e.value, e.dtype);
      case "StringImm":
        return fail(this.ctx, `the string "${e.value}" can only be an argument of an intrinsic such as T.tvm_storage_sync`);
      case "Var":
        return this.variable(e);
      case "Binary":
        return this.binary(e.op, e.a.dtype, this.expr(e.a), this.expr(e.b), e.a, e.b);
      case "Not":
        return `(!${this.expr(e.a)})`;
      case "Select":
        return `(${this.expr(e.condition)} ? ${this.expr(e.trueValue)} : ${this.expr(e.falseValue)})`;
      case "Cast":
        return `((${this.type(e.dtype, "a cast")})${this.expr(e.value)})`;
      case "BufferLoad":
        return `${this.storageOf(e)}[${this.expr(e.indices[0]!)}]`;
      case "Let":
        return this.withLet(e.variable, e.value, () => this.expr(e.body));
      case "Call":
        return this.call(e, (a) => this.expr(a));
      case "Ramp":
      case "Broadcast":
        return fail(this.ctx, `a ${e.kind} of one lane`);
    }
  }

  private floatLiteral(value: number, dtype: DType): string {
    const t = this.type(dtype, `the constant ${value}`);
    if (!Number.isFinite(value)) {
      const bits = NON_FINITE_BITS[Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf"]!;
      return t === "float" ? `as_type<float>(${bits})` : `((${t})as_type<float>(${bits}))`;
    }
    const f32 = float32Literal(value);
    return t === "float" ? f32 : `((${t})${f32})`;
  }

  private variable(v: Var): string {
    const text = this.lets.get(v) ?? this.ctx.predefined.get(v) ?? this.ctx.names.lookup(v);
    if (text === undefined) fail(this.ctx, `variable ${v.name} is used but is not a parameter, loop variable, let binding or thread index of the kernel`);
    return text;
  }

  private withLet<T>(v: Var, value: PrimExpr, body: () => T): T {
    return this.lets.with(v, lanesOf(value.dtype) > 1 ? this.vector(value) : this.expr(value), body);
  }

  binary(op: BinaryOp, operandType: DType, a: string, b: string, aExpr?: PrimExpr, bExpr?: PrimExpr): string {
    const float = elementType(operandType).startsWith("float");
    const nonNegative = aExpr !== undefined && bExpr !== undefined && this.ctx.facts.isNonNegative(aExpr) && this.ctx.facts.isPositive(bExpr);
    switch (op) {
      case "mod":
        return float ? `fmod(${a}, ${b})` : `(${a} % ${b})`;
      case "floordiv":
        if (float) return `floor((${a} / ${b}))`;
        return nonNegative ? `(${a} / ${b})` : this.floorHelper("tessera_floordiv", operandType, a, b);
      case "floormod":
        if (float) return `(${a} - (floor((${a} / ${b})) * ${b}))`;
        return nonNegative ? `(${a} % ${b})` : this.floorHelper("tessera_floormod", operandType, a, b);
      case "min":
      case "max":
        return `${op}(${a}, ${b})`;
      default: {
        const symbol = C_OPERATORS[op];
        if (symbol === undefined) return fail(this.ctx, `the binary operator ${op} has no Metal translation`);
        return `(${a} ${symbol} ${b})`;
      }
    }
  }

  private floorHelper(name: string, dtype: DType, a: string, b: string): string {
    if (dtype !== "int32") fail(this.ctx, `floor division or modulo of ${dtype} operands that may be negative is not supported (only int32)`);
    this.ctx.floorDivision = true;
    return `${name}(${a}, ${b})`;
  }

  private call(e: Call, arg: (a: PrimExpr) => string): string {
    const args = e.args.map(arg);
    const [a, b, c] = args;
    const operand = e.args[0] === undefined ? e.dtype : elementType(e.args[0].dtype);
    const isFloat = operand === "float32" || operand === "float16";
    if (e.op === "tvm_storage_sync") return fail(this.ctx, "T.tvm_storage_sync is a statement and cannot be part of an expression");
    if (e.op === "if_then_else") return `(${a} ? ${b} : ${c})`;
    if (e.op === "likely") return a!;
    if (e.op === "assume") return "true";
    if (e.op === "sigmoid" && isFloat) return `(1.0f / (1.0f + exp(-${a})))`;
    if (e.op === "fabs" && !isFloat) return `abs(${a})`;
    if (FLOAT_MATH.has(e.op) && isFloat) return `${e.op}(${args.join(", ")})`;
    const bitwise = BITWISE[e.op];
    if ((bitwise !== undefined || e.op === "bitwise_not") && !isFloat && operand !== "bool") {
      return bitwise === undefined ? `(~${a})` : `(${a} ${bitwise} ${b})`;
    }
    if (FLOAT_MATH.has(e.op) || bitwise !== undefined || e.op === "sigmoid") fail(this.ctx, `T.${e.op} on ${operand} operands has no Metal translation`);
    return fail(this.ctx, `the intrinsic T.${e.op} has no Metal translation`);
  }

  storageOf(access: { buffer: BufferLoad["buffer"]; indices: readonly PrimExpr[] }): string {
    return flatStorage(access, this.ctx.storage, (detail) => fail(this.ctx, detail)).name;
  }

  vector(e: PrimExpr): string {
    const type = this.type(e.dtype, "a vector value");
    if (e.kind === "Var") return this.variable(e);
    if (e.kind === "Let") return this.withLet(e.variable, e.value, () => this.vector(e.body));
    if (e.kind === "BufferLoad" && lanesOf(e.indices[0]!.dtype) === 1) return `${this.storageOf(e)}[${this.expr(e.indices[0]!)}]`;
    if (e.kind === "Broadcast") return `${type}(${this.expr(e.value)})`;
    return `${type}(${Array.from({ length: lanesOf(e.dtype) }, (_, i) => this.lane(e, i)).join(", ")})`;
  }

  lane(e: PrimExpr, i: number): string {
    if (lanesOf(e.dtype) === 1) return this.expr(e);
    switch (e.kind) {
      case "Ramp":
        return this.rampLane(e, i);
      case "Broadcast":
        return this.expr(e.value);
      case "BufferLoad":
        if (lanesOf(e.indices[0]!.dtype) > 1) return `${this.storageOf(e)}[${this.lane(e.indices[0]!, i)}]`;
        break;
      case "Binary":
        return this.binary(e.op, elementType(e.a.dtype), this.lane(e.a, i), this.lane(e.b, i));
      case "Not":
        return `(!${this.lane(e.a, i)})`;
      case "Select":
        return `(${this.lane(e.condition, i)} ? ${this.lane(e.trueValue, i)} : ${this.lane(e.falseValue, i)})`;
      case "Cast":
        return `((${this.type(elementType(e.dtype), "a cast")})${this.lane(e.value, i)})`;
      case "Call":
        return this.call(e, (a) => this.lane(a, i));
      case "Let":
        return this.withLet(e.variable, e.value, () => this.lane(e.body, i));
      default:
        break;
    }
    if (i > 3) fail(this.ctx, `lane ${i} of a ${e.dtype} value cannot be addressed`);
    return `${this.vector(e)}[${i}]`;
  }

  private rampLane(e: Ramp, i: number): string {
    if (i === 0) return this.expr(e.base);
    if (e.stride.kind === "IntImm") {
      const offset = e.stride.value * i;
      return e.base.kind === "IntImm" ? String(e.base.value + offset) : `(${this.expr(e.base)} + ${offset})`;
    }
    return `(${this.expr(e.base)} + (${this.expr(e.stride)} * ${i}))`;
  }
}

/**
 * WGSL text of TensorIR expressions. WGSL is stricter than C: no implicit conversions (every
 * cast is a constructor, `f32(x)`), `select(false, true, cond)` instead of `?:`, shift amounts
 * are u32, constant expressions may not be infinite or NaN. Vector expressions are written lane
 * by lane (`lane(e, i)`) or as `vecN<T>(…)` where a whole value is needed.
 */
import { type BinaryOp, type BufferLoad, type Call, type DType, type PrimExpr, type Ramp, type Var, elementType, lanesOf } from "@tessera/ir";
import { C_OPERATORS } from "../c-family/operators.js";
import { LetTexts, flatStorage } from "../shader/kernel-parts.js";
import { type WgslContext, fail } from "./context.js";
import { SUPPORTED_WGSL_DTYPES, wgslTypeOf } from "./types.js";

const FLOAT_MATH: Readonly<Record<string, string>> = {
  exp: "exp",
  log: "log",
  sqrt: "sqrt",
  tanh: "tanh",
  floor: "floor",
  ceil: "ceil",
  trunc: "trunc",
  fabs: "abs",
  pow: "pow",
  rsqrt: "inverseSqrt",
};

const BITWISE: Readonly<Record<string, string>> = { shift_left: "<<", shift_right: ">>", bitwise_and: "&", bitwise_or: "|", bitwise_xor: "^" };

/** Lane components of WGSL vectors. */
const COMPONENTS = ["x", "y", "z", "w"] as const;

export class WgslExprEmitter {
  private readonly lets = new LetTexts();

  constructor(private readonly ctx: WgslContext) {}

  /** The WGSL type of `dtype`, or a ShaderCodegenError naming `what` needs it. */
  type(dtype: DType, what: string): string {
    const t = wgslTypeOf(dtype);
    if (t === undefined) fail(this.ctx, `${what} has dtype ${dtype}, which WGSL cannot express (supported: ${SUPPORTED_WGSL_DTYPES})`);
    if (elementType(dtype) === "float16") {
      if (!this.ctx.target.shaderF16)
        fail(this.ctx, `${what} has dtype ${dtype}, which needs the shader-f16 feature (target "${this.ctx.target.name}" lacks it)`);
      this.ctx.features.add("f16");
    }
    return t;
  }

  expr(e: PrimExpr): string {
    if (lanesOf(e.dtype) > 1) return this.vector(e);
    switch (e.kind) {
      case "IntImm":
        return this.intLiteral(e.value, e.dtype);
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
        return `select(${this.expr(e.falseValue)}, ${this.expr(e.trueValue)}, ${this.expr(e.condition)})`;
      case "Cast":
        return this.cast(e.value.dtype, e.dtype, this.expr(e.value));
      case "BufferLoad":
        return this.element(e, this.expr(e.indices[0]!));
      case "Let":
        return this.withLet(e.variable, e.value, () => this.expr(e.body));
      case "Call":
        return this.call(e, (a) => this.expr(a));
      case "Ramp":
      case "Broadcast":
        return fail(this.ctx, `a ${e.kind} of one lane`);
    }
  }

  /** Text of an `if`/`while` condition (WGSL wants the parentheses; the outer ones are the expression's). */
  condition(e: PrimExpr): string {
    const text = this.expr(e);
    return text.startsWith("(") && balancedOuter(text) ? text : `(${text})`;
  }

  intLiteral(value: number, dtype: DType): string {
    const t = this.type(dtype, `the constant ${value}`);
    if (t === "bool") return value !== 0 ? "true" : "false";
    if (t === "u32") return `${value}u`;
    if (t === "i32") return value === -2147483648 ? "(-2147483647i - 1i)" : `${value}i`;
    return `${t}(${value})`;
  }

  floatLiteral(value: number, dtype: DType): string {
    const t = this.type(dtype, `the constant ${value}`);
    if (!Number.isFinite(value)) {
      // A constant expression may not be infinite or NaN: read the bits from a module variable.
      this.ctx.features.add("nonfinite");
      const component = Number.isNaN(value) ? "z" : value > 0 ? "x" : "y";
      const bits = `bitcast<f32>(tessera_bits.${component})`;
      return t === "f32" ? bits : `${t}(${bits})`;
    }
    if (t === "f32") return wgslFloat32Literal(value);
    if (t === "f16") return `${value.toExponential()}h`;
    return `${t}(${value})`;
  }

  private cast(from: DType, to: DType, x: string): string {
    const target = this.type(to, "a cast");
    this.type(from, "a cast");
    return wgslTypeOf(from) === target ? x : `${target}(${x})`;
  }

  private variable(v: Var): string {
    const text = this.lets.get(v) ?? this.ctx.predefined.get(v) ?? this.ctx.names.lookup(v);
    if (text === undefined) {
      fail(this.ctx, `variable ${v.name} is used but is not a parameter, loop variable, let binding or thread index of the kernel`);
    }
    return text;
  }

  private withLet<T>(v: Var, value: PrimExpr, body: () => T): T {
    return this.lets.with(v, lanesOf(value.dtype) > 1 ? this.vector(value) : this.expr(value), body);
  }

  /** One scalar binary operation on printed operands; `aExpr`/`bExpr` let floor division be `/` when provably non-negative. */
  binary(op: BinaryOp, operandType: DType, a: string, b: string, aExpr?: PrimExpr, bExpr?: PrimExpr): string {
    const float = elementType(operandType).startsWith("float");
    switch (op) {
      case "mod":
        // WGSL's % truncates, for integers and floats alike, as TVM's truncated mod does.
        return `(${a} % ${b})`;
      case "floordiv":
        if (float) return `floor((${a} / ${b}))`;
        return this.nonNegativeDivision(aExpr, bExpr) ? `(${a} / ${b})` : this.floorHelper("tessera_floordiv", operandType, a, b);
      case "floormod":
        if (float) return `(${a} - (floor((${a} / ${b})) * ${b}))`;
        return this.nonNegativeDivision(aExpr, bExpr) ? `(${a} % ${b})` : this.floorHelper("tessera_floormod", operandType, a, b);
      case "min":
      case "max":
        return `${op}(${a}, ${b})`;
      default: {
        const symbol = C_OPERATORS[op];
        if (symbol === undefined) return fail(this.ctx, `the binary operator ${op} has no WGSL translation`);
        return `(${a} ${symbol} ${b})`;
      }
    }
  }

  private nonNegativeDivision(a: PrimExpr | undefined, b: PrimExpr | undefined): boolean {
    return a !== undefined && b !== undefined && this.ctx.facts.isNonNegative(a) && this.ctx.facts.isPositive(b);
  }

  private floorHelper(name: string, dtype: DType, a: string, b: string): string {
    if (dtype !== "int32") fail(this.ctx, `floor division or modulo of ${dtype} operands that may be negative is not supported (only int32)`);
    this.ctx.features.add("floordiv");
    return `${name}(${a}, ${b})`;
  }

  private call(e: Call, arg: (a: PrimExpr) => string): string {
    const args = e.args.map(arg);
    const [a, b, c] = args;
    const operand = e.args[0] === undefined ? e.dtype : elementType(e.args[0].dtype);
    const isFloat = operand === "float32" || operand === "float16";
    const isInt = operand === "int32" || operand === "uint32";
    switch (e.op) {
      case "tvm_storage_sync":
        return fail(this.ctx, "T.tvm_storage_sync is a statement and cannot be part of an expression");
      case "if_then_else":
        // Both sides are evaluated: safe, since WGSL clamps or discards out-of-bounds accesses.
        return `select(${c}, ${b}, ${a})`;
      case "likely":
        return a!;
      case "assume":
        return "true";
      case "sigmoid":
        if (!isFloat) break;
        return `(1.0 / (1.0 + exp(-${a})))`;
      case "round":
        // TVM rounds halves away from zero; WGSL's round() rounds them to even.
        if (!isFloat) break;
        return `(trunc(${a}) + trunc((${a} - trunc(${a})) * 2.0))`;
      case "bitwise_not":
        if (!isInt) break;
        return `(~${a})`;
      default: {
        const bitwise = BITWISE[e.op];
        if (bitwise !== undefined && isInt) return `(${a} ${bitwise} ${e.op.startsWith("shift") ? `u32(${b})` : b})`;
        if (e.op === "fabs" && isInt) return `abs(${a})`;
        const math = FLOAT_MATH[e.op];
        if (math !== undefined && isFloat) return `${math}(${args.join(", ")})`;
        if (bitwise === undefined && math === undefined) return fail(this.ctx, `the intrinsic T.${e.op} has no WGSL translation`);
      }
    }
    void c;
    return fail(this.ctx, `T.${e.op} on ${operand} operands has no WGSL translation`);
  }

  /** The array name a load/store of `buffer` uses, checking it is a flat access of known storage. */
  storageOf(access: { buffer: BufferLoad["buffer"]; indices: readonly PrimExpr[] }): string {
    return flatStorage(access, this.ctx.storage, (detail) => fail(this.ctx, detail)).name;
  }

  /** The scalar element at printed index `index` of the array `access` reads or writes (through its vec4 view when it has one). */
  element(access: { buffer: BufferLoad["buffer"]; indices: readonly PrimExpr[] }, index: string): string {
    const name = this.storageOf(access);
    if (!this.ctx.storage.get(access.buffer.data)!.vec4) return `${name}[${index}]`;
    const constant = constantIndex(index);
    if (constant !== undefined) return `${name}[${constant >> 2}].${COMPONENTS[constant & 3]!}`;
    return `${name}[(${index} >> 2u)][(${index} & 3i)]`;
  }

  /** `name[base / 4]` when `index` is an aligned 4-lane ramp into an array declared of vec4, else undefined. */
  quadAccess(access: { buffer: BufferLoad["buffer"]; indices: readonly PrimExpr[] }): string | undefined {
    const index = access.indices[0];
    const storage = this.ctx.storage.get(access.buffer.data);
    if (index === undefined || storage?.vec4 !== true) return undefined;
    if (!(index.kind === "Ramp" && index.lanes === 4 && index.stride.kind === "IntImm" && index.stride.value === 1)) return undefined;
    if (!this.ctx.facts.isMultipleOf(index.base, 4)) return undefined;
    const base = this.expr(index.base);
    const constant = constantIndex(base);
    return `${this.storageOf(access)}[${constant === undefined ? `(${base} >> 2u)` : constant >> 2}]`;
  }

  /** A vector expression as a whole value: `vecN<T>(lane0, …)`, a vector variable or a vector element. */
  vector(e: PrimExpr): string {
    const type = this.type(e.dtype, "a vector value");
    if (e.kind === "Var") return this.variable(e);
    if (e.kind === "Let") return this.withLet(e.variable, e.value, () => this.vector(e.body));
    if (e.kind === "BufferLoad" && lanesOf(e.indices[0]!.dtype) === 1) return `${this.storageOf(e)}[${this.expr(e.indices[0]!)}]`;
    if (e.kind === "BufferLoad") {
      const quad = this.quadAccess(e);
      if (quad !== undefined) return quad;
    }
    if (e.kind === "Broadcast") return `${type}(${this.expr(e.value)})`;
    const lanes = Array.from({ length: lanesOf(e.dtype) }, (_, i) => this.lane(e, i));
    return `${type}(${lanes.join(", ")})`;
  }

  /** Scalar text of lane `i` of `e` (a scalar `e` is the same in every lane). */
  lane(e: PrimExpr, i: number): string {
    if (lanesOf(e.dtype) === 1) return this.expr(e);
    switch (e.kind) {
      case "Ramp":
        return this.rampLane(e, i);
      case "Broadcast":
        return this.expr(e.value);
      case "BufferLoad": {
        const index = e.indices[0]!;
        if (lanesOf(index.dtype) > 1) return this.element(e, this.lane(index, i));
        break;
      }
      case "Binary":
        return this.binary(e.op, elementType(e.a.dtype), this.lane(e.a, i), this.lane(e.b, i));
      case "Not":
        return `(!${this.lane(e.a, i)})`;
      case "Select":
        return `select(${this.lane(e.falseValue, i)}, ${this.lane(e.trueValue, i)}, ${this.lane(e.condition, i)})`;
      case "Cast":
        return this.cast(elementType(e.value.dtype), elementType(e.dtype), this.lane(e.value, i));
      case "Call":
        return this.call(e, (a) => this.lane(a, i));
      case "Let":
        return this.withLet(e.variable, e.value, () => this.lane(e.body, i));
      default:
        break;
    }
    const component = COMPONENTS[i];
    if (component === undefined) fail(this.ctx, `lane ${i} of a ${e.dtype} value cannot be addressed`);
    return `${this.vector(e)}.${component}`;
  }

  private rampLane(e: Ramp, i: number): string {
    if (i === 0) return this.expr(e.base);
    if (e.stride.kind === "IntImm") {
      const offset = e.stride.value * i;
      if (e.base.kind === "IntImm") return this.intLiteral(e.base.value + offset, e.base.dtype);
      return `(${this.expr(e.base)} + ${this.intLiteral(offset, e.base.dtype)})`;
    }
    return `(${this.expr(e.base)} + (${this.expr(e.stride)} * ${this.intLiteral(i, e.base.dtype)}))`;
  }
}

/** The value of an index printed as a non-negative i32 literal (`12i`), else undefined. */
function constantIndex(text: string): number | undefined {
  const m = /^(\d+)i$/.exec(text);
  return m === null ? undefined : Number(m[1]);
}

/**
 * A finite f32 literal: the shortest decimal of the float32 value (exact, so never past the
 * largest f32, which WGSL rejects where C rounds), with `.0` where it would read as an integer.
 */
export function wgslFloat32Literal(value: number): string {
  const f = Math.fround(value);
  if (Object.is(f, -0)) return "-0.0f";
  const text = String(f);
  return `${/[.e]/.test(text) ? text : `${text}.0`}f`;
}

/** Whether the parenthesis opening `text` closes at its end. */
function balancedOuter(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    if (depth === 0 && i < text.length - 1) return false;
  }
  return text.endsWith(")");
}

/**
 * WGSL text of TensorIR expressions. WGSL is stricter than C: no implicit conversions (every
 * cast is a constructor, `f32(x)`), `select(false, true, cond)` instead of `?:`, shift amounts
 * are u32, constant expressions may not be infinite or NaN. Vector expressions are written lane
 * by lane or as `vecN<T>(…)` where a whole value is needed. The walk is the shared one
 * (walker/expr-walker.ts); this is WGSL's spelling.
 */
import { type Call, type DType, type PrimExpr, elementType } from "@tessera/ir";
import { type BufferAccess, ExprWalker } from "../walker/expr-walker.js";
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

export class WgslExprEmitter extends ExprWalker<WgslContext> {
  protected readonly language = "WGSL";

  fail(detail: string): never {
    return fail(this.ctx, detail);
  }

  /** The WGSL type of `dtype`, or a ShaderCodegenError naming `what` needs it. */
  type(dtype: DType, what: string): string {
    const t = wgslTypeOf(dtype);
    if (t === undefined) this.fail(`${what} has dtype ${dtype}, which WGSL cannot express (supported: ${SUPPORTED_WGSL_DTYPES})`);
    if (elementType(dtype) === "float16") {
      if (!this.ctx.target.shaderF16) this.fail(`${what} has dtype ${dtype}, which needs the shader-f16 feature (target "${this.ctx.target.name}" lacks it)`);
      this.ctx.features.add("f16");
    }
    return t;
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

  protected cast(from: DType, to: DType, x: string): string {
    const target = this.type(to, "a cast");
    this.type(from, "a cast");
    return wgslTypeOf(from) === target ? x : `${target}(${x})`;
  }

  protected select(condition: string, whenTrue: string, whenFalse: string): string {
    return `select(${whenFalse}, ${whenTrue}, ${condition})`;
  }

  /** WGSL's % truncates, for integers and floats alike, as TVM's truncated mod does. */
  protected override floatRemainder(a: string, b: string): string {
    return `(${a} % ${b})`;
  }

  protected useFloorHelpers(): void {
    this.ctx.features.add("floordiv");
  }

  protected intrinsic(e: Call, arg: (a: PrimExpr) => string): string {
    const args = e.args.map(arg);
    const [a, b, c] = args;
    const operand = e.args[0] === undefined ? e.dtype : elementType(e.args[0].dtype);
    const isFloat = operand === "float32" || operand === "float16";
    const isInt = operand === "int32" || operand === "uint32";
    switch (e.op) {
      case "if_then_else":
        // Both sides are evaluated: safe, since WGSL clamps or discards out-of-bounds accesses.
        return this.select(a!, b!, c!);
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
        if (bitwise === undefined && math === undefined) return this.fail(`the intrinsic T.${e.op} has no WGSL translation`);
      }
    }
    return this.fail(`T.${e.op} on ${operand} operands has no WGSL translation`);
  }

  protected component(i: number, dtype: DType): string {
    const component = COMPONENTS[i];
    if (component === undefined) this.fail(`lane ${i} of a ${dtype} value cannot be addressed`);
    return `.${component}`;
  }

  /** The scalar element at printed index `index` of the array `access` reads or writes (through its vec4 view when it has one). */
  override element(access: BufferAccess, index: string): string {
    const name = this.storageOf(access);
    if (!this.ctx.storage.get(access.buffer.data)!.vec4) return `${name}[${index}]`;
    const constant = constantIndex(index);
    if (constant !== undefined) return `${name}[${constant >> 2}].${COMPONENTS[constant & 3]!}`;
    return `${name}[(${index} >> 2u)][(${index} & 3i)]`;
  }

  /** `name[base / 4]` when the access is an aligned 4-lane ramp into an array declared of vec4, else undefined. */
  override alignedVectorAccess(access: BufferAccess): string | undefined {
    const index = access.indices[0];
    const storage = this.ctx.storage.get(access.buffer.data);
    if (index === undefined || storage?.vec4 !== true) return undefined;
    if (!(index.kind === "Ramp" && index.lanes === 4 && index.stride.kind === "IntImm" && index.stride.value === 1)) return undefined;
    if (!this.ctx.facts.isMultipleOf(index.base, 4)) return undefined;
    const base = this.expr(index.base);
    const constant = constantIndex(base);
    return `${this.storageOf(access)}[${constant === undefined ? `(${base} >> 2u)` : constant >> 2}]`;
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

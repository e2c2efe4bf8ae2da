/**
 * MSL text of TensorIR expressions. Metal is C++: operators and casts as in CUDA C, but its math
 * library is overloaded (`exp`, `min`, `fabs` for float and half alike), there is no double, and
 * non-finite constants are `as_type<float>` of their bits. Vectors are written lane by lane. The
 * walk is the shared one (walker/expr-walker.ts); this is Metal's spelling.
 */
import { type Call, type DType, type PrimExpr, elementType } from "@tessera/ir";
import { float32Literal } from "../c-family/literals.js";
import { ShaderCodegenError } from "../shader/errors.js";
import { ExprWalker, type WalkerContext } from "../walker/expr-walker.js";
import { SUPPORTED_METAL_DTYPES, metalTypeOf } from "./types.js";

/** `predefined`: thread indices (`((int)threadIdx.x)`) and scalar parameters (`args.n`). */
export interface MetalContext extends WalkerContext<{ readonly name: string; readonly dtype: DType }> {
  /** Whether the floor-division helpers are used. */
  floorDivision: boolean;
}

export function fail(ctx: MetalContext, detail: string): never {
  throw new ShaderCodegenError("Metal", ctx.kernelName, detail);
}

const FLOAT_MATH = new Set(["exp", "log", "sqrt", "tanh", "floor", "ceil", "round", "trunc", "fabs", "pow", "rsqrt"]);
const BITWISE: Readonly<Record<string, string>> = { shift_left: "<<", shift_right: ">>", bitwise_and: "&", bitwise_or: "|", bitwise_xor: "^" };
const NON_FINITE_BITS: Readonly<Record<string, string>> = { inf: "0x7f800000u", "-inf": "0xff800000u", nan: "0x7fc00000u" };

export class MetalExprEmitter extends ExprWalker<MetalContext> {
  protected readonly language = "Metal";

  fail(detail: string): never {
    return fail(this.ctx, detail);
  }

  type(dtype: DType, what: string): string {
    const t = metalTypeOf(dtype);
    if (t === undefined) this.fail(`${what} has dtype ${dtype}, which Metal cannot express (supported: ${SUPPORTED_METAL_DTYPES})`);
    return t;
  }

  intLiteral(value: number, dtype: DType): string {
    const t = this.type(dtype, `the constant ${value}`);
    if (t === "bool") return value !== 0 ? "true" : "false";
    return t === "int" ? String(value) : `((${t})${value})`;
  }

  floatLiteral(value: number, dtype: DType): string {
    const t = this.type(dtype, `the constant ${value}`);
    if (!Number.isFinite(value)) {
      const bits = NON_FINITE_BITS[Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf"]!;
      return t === "float" ? `as_type<float>(${bits})` : `((${t})as_type<float>(${bits}))`;
    }
    const f32 = float32Literal(value);
    return t === "float" ? f32 : `((${t})${f32})`;
  }

  protected cast(_from: DType, to: DType, x: string): string {
    return `((${this.type(to, "a cast")})${x})`;
  }

  protected select(condition: string, whenTrue: string, whenFalse: string): string {
    return `(${condition} ? ${whenTrue} : ${whenFalse})`;
  }

  protected useFloorHelpers(): void {
    this.ctx.floorDivision = true;
  }

  protected intrinsic(e: Call, arg: (a: PrimExpr) => string): string {
    const args = e.args.map(arg);
    const [a, b, c] = args;
    const operand = e.args[0] === undefined ? e.dtype : elementType(e.args[0].dtype);
    const isFloat = operand === "float32" || operand === "float16";
    if (e.op === "if_then_else") return this.select(a!, b!, c!);
    if (e.op === "likely") return a!;
    if (e.op === "assume") return "true";
    if (e.op === "sigmoid" && isFloat) return `(1.0f / (1.0f + exp(-${a})))`;
    if (e.op === "fabs" && !isFloat) return `abs(${a})`;
    if (FLOAT_MATH.has(e.op) && isFloat) return `${e.op}(${args.join(", ")})`;
    const bitwise = BITWISE[e.op];
    if ((bitwise !== undefined || e.op === "bitwise_not") && !isFloat && operand !== "bool") {
      return bitwise === undefined ? `(~${a})` : `(${a} ${bitwise} ${b})`;
    }
    if (FLOAT_MATH.has(e.op) || bitwise !== undefined || e.op === "sigmoid") this.fail(`T.${e.op} on ${operand} operands has no Metal translation`);
    return this.fail(`the intrinsic T.${e.op} has no Metal translation`);
  }

  protected component(i: number, dtype: DType): string {
    if (i > 3) this.fail(`lane ${i} of a ${dtype} value cannot be addressed`);
    return `[${i}]`;
  }
}

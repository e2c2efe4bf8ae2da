/**
 * CUDA C text of TensorIR expressions, in TVM's style: every binary operation parenthesised
 * (`((a + b) * c)`), thread indices as `((int)threadIdx.x)`, float32 literals as `1.000000e+00f`.
 *
 * Vector expressions (`float32x4`) print as a whole where CUDA can express it (an aligned
 * `*(float4*)(A + i)` access, `make_float4(...)`, element-wise operators from the preamble) and
 * otherwise lane by lane. The walk is the shared one (walker/expr-walker.ts); this is CUDA's spelling.
 */
import { type BinaryOp, type Call, type DType, type PrimExpr, type Ramp, asRamp, elementType, lanesOf } from "@tessera/ir";
import { IntrinsicSpellingError, spellIntrinsic } from "../c-family/intrinsics.js";
import { float32Literal, float64Literal, intLiteral } from "../c-family/literals.js";
import { C_OPERATORS } from "../c-family/operators.js";
import { type BufferAccess, ExprWalker, type FloatFunction } from "../walker/expr-walker.js";
import { type EmitContext, fail } from "./context.js";
import { LANE_NAMES, cTypeOf, halfElementOf, isCudaVectorType, supportedDTypes, vectorConstructor } from "./ctypes.js";
import { floatToHalf, halfBinary, halfCast, halfLiteral, halfToFloat, halfTypeFeature } from "./half-types.js";

export class ExprEmitter extends ExprWalker<EmitContext> {
  protected readonly language = "CUDA";
  protected override readonly floorHelperDTypes: readonly DType[] = ["int32", "int64"];

  fail(detail: string): never {
    return fail(this.ctx, detail);
  }

  /** The C type of `dtype`, or a CodegenError naming what is unsupported. */
  cType(dtype: DType, what: string): string {
    const t = cTypeOf(dtype);
    if (t === undefined) this.fail(`${what} has dtype ${dtype}, which the CUDA generator does not support (supported: ${supportedDTypes()})`);
    const header = halfTypeFeature(dtype);
    if (header !== undefined) this.ctx.features.add(header);
    return t;
  }

  type(dtype: DType, what: string): string {
    return this.cType(dtype, what);
  }

  intLiteral(value: number, dtype: DType): string {
    return intLiteral(value, this.cType(dtype, `the constant ${value}`));
  }

  /** Text of an `if` condition: the outer parentheses of a comparison are dropped. */
  condition(e: PrimExpr): string {
    return stripOuterParens(this.expr(e));
  }

  floatLiteral(value: number, dtype: DType): string {
    if (dtype === "float32") return float32Literal(value);
    if (dtype === "float64") return float64Literal(value);
    const half = halfElementOf(dtype);
    if (half !== undefined) {
      this.cType(dtype, `the constant ${value}`);
      return halfLiteral(half, value);
    }
    return this.fail(`the constant ${value} has dtype ${dtype}, which the CUDA generator does not support (supported: ${supportedDTypes()})`);
  }

  protected cast(from: DType, to: DType, x: string): string {
    const target = this.cType(to, "a cast");
    if (halfElementOf(from) !== undefined) this.cType(from, "a cast");
    return halfCast(from, to, x, (dt) => this.cType(dt, "a cast")) ?? `((${target})${x})`;
  }

  protected select(condition: string, whenTrue: string, whenFalse: string): string {
    return `(${condition} ? ${whenTrue} : ${whenFalse})`;
  }

  protected override specialBinary(op: BinaryOp, operandType: DType, a: string, b: string): string | undefined {
    const half = halfElementOf(operandType);
    return half === undefined ? undefined : halfBinary(half, op, a, b);
  }

  /** C's float32 functions end in `f` (`floorf`, `fminf`). */
  protected override floatFunction(fn: FloatFunction, dtype: DType): string {
    return dtype === "float32" ? `${fn}f` : fn;
  }

  protected useFloorHelpers(): void {
    this.ctx.features.add("floordiv");
  }

  protected intrinsic(e: Call, arg: (a: PrimExpr) => string): string {
    const args = e.args;
    const argDType = args[0]?.dtype === undefined ? e.dtype : elementType(args[0].dtype);
    if (e.op === "tf32_round") {
      this.ctx.features.add("tf32_round");
      return `tessera_tf32_round(${arg(args[0]!)})`;
    }
    // The low 13 mantissa bits cleared, as the tensor cores read an unrounded float32.
    if (e.op === "tf32_truncate") return `__uint_as_float(__float_as_uint(${arg(args[0]!)}) & 0xffffe000u)`;
    const half = halfElementOf(argDType);
    try {
      // 16-bit math runs in float and rounds once (the selection of if_then_else has a bool first operand).
      if (half !== undefined)
        return floatToHalf(
          half,
          spellIntrinsic(
            "cuda",
            e.op,
            "float32",
            args.map((a) => halfToFloat(half, arg(a))),
          ),
        );
      return spellIntrinsic("cuda", e.op, argDType, args.map(arg));
    } catch (err) {
      if (err instanceof IntrinsicSpellingError) return this.fail(err.message);
      throw err;
    }
  }

  protected component(i: number, dtype: DType): string {
    const component = LANE_NAMES[i];
    if (component === undefined) this.fail(`lane ${i} of a ${dtype} value cannot be addressed`);
    return `.${component}`;
  }

  /**
   * `*(float4*)(A + base)` for a `Ramp(base, 1, lanes)` access of a scalar buffer whose base is
   * provably a multiple of `lanes` (so the access is aligned); undefined otherwise.
   */
  override alignedVectorAccess(access: BufferAccess, valueType: DType): string | undefined {
    // A flattened vector index (`Broadcast(row) + Ramp(column, 1, n)`) is a ramp too.
    const index = access.indices[0] === undefined ? undefined : asRamp(access.indices[0]);
    if (index === undefined || lanesOf(access.buffer.dtype) !== 1 || !isCudaVectorType(valueType)) return undefined;
    if (!isUnitStride(index)) return undefined;
    if (!this.ctx.facts.isMultipleOf(index.base, index.lanes)) return undefined;
    const pointer = this.storageOf(access);
    this.ctx.vectorAccessed.add(access.buffer.data);
    return `*(${cTypeOf(valueType)!}*)(${pointer} + ${this.expr(index.base)})`;
  }

  /** The CUDA vector type of `dtype`; a CodegenError when CUDA has none. */
  protected override vectorType(dtype: DType): string {
    const type = cTypeOf(dtype);
    if (type === undefined || !isCudaVectorType(dtype)) {
      this.fail(
        `a vector of dtype ${dtype} is needed as a value, but CUDA has no such vector type (supported: float16x2, bfloat16x2, float32x2, float32x4, float64x2, int32x2, int32x4)`,
      );
    }
    const header = halfTypeFeature(dtype);
    if (header !== undefined) this.ctx.features.add(header);
    return type;
  }

  protected override construct(type: string, lanes: readonly string[]): string {
    return `${vectorConstructor(type)}(${lanes.join(", ")})`;
  }

  protected override broadcast(type: string, value: string, lanes: number): string {
    return this.construct(
      type,
      Array.from({ length: lanes }, () => value),
    );
  }

  protected override vectorBinary(e: PrimExpr & { kind: "Binary" }, type: string): string | undefined {
    if (!["add", "sub", "mul", "div"].includes(e.op)) return undefined;
    // cuda_fp16.h and cuda_bf16.h define the operators of __half2 and __nv_bfloat162.
    if (halfElementOf(e.dtype) === undefined) this.ctx.features.add(`vector_ops:${type}`);
    return `(${this.vector(e.a)} ${C_OPERATORS[e.op]!} ${this.vector(e.b)})`;
  }

  protected override rampLane(e: Ramp, i: number): string {
    if (i === 0) return this.expr(e.base);
    if (e.stride.kind === "IntImm") {
      // `(x + 2)` with offset 3 prints `(x + 5)`, not `((x + 2) + 3)`.
      const { rest, constant } = splitConstant(e.base);
      const offset = constant + e.stride.value * i;
      // A constant base (an unrolled register tile's index) prints as the lane's constant.
      if (rest.kind === "IntImm" && rest.dtype === "int32") return String(rest.value + offset);
      if (offset === 0) return this.expr(rest);
      return offset < 0 ? `(${this.expr(rest)} - ${-offset})` : `(${this.expr(rest)} + ${offset})`;
    }
    return `(${this.expr(e.base)} + (${this.expr(e.stride)} * ${i}))`;
  }
}

/** `x + c` → `{x, c}`; anything else → `{e, 0}`. */
function splitConstant(e: PrimExpr): { rest: PrimExpr; constant: number } {
  if (e.kind === "IntImm") return { rest: { ...e, value: 0 }, constant: e.value };
  if (e.kind === "Binary" && e.op === "add" && e.b.kind === "IntImm" && e.b.dtype === e.dtype) return { rest: e.a, constant: e.b.value };
  return { rest: e, constant: 0 };
}

function isUnitStride(r: Ramp): boolean {
  return r.stride.kind === "IntImm" && r.stride.value === 1;
}

/** `(x)` → `x` when the first parenthesis closes at the very end. */
export function stripOuterParens(text: string): string {
  if (!text.startsWith("(") || !text.endsWith(")")) return text;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    if (depth === 0 && i < text.length - 1) return text;
  }
  return text.slice(1, -1);
}

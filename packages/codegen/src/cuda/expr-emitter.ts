/**
 * CUDA C text of TensorIR expressions, in TVM's style: every binary operation parenthesised
 * (`((a + b) * c)`), thread indices as `((int)threadIdx.x)`, float32 literals as `1.000000e+00f`.
 *
 * Vector expressions (`float32x4`) print as a whole where CUDA can express it (an aligned
 * `*(float4*)(A + i)` access, `make_float4(...)`, element-wise operators from the preamble) and
 * otherwise lane by lane: `laneText(e, i)` is the scalar text of lane `i` of any vector expression.
 */
import { type BinaryOp, type BufferLoad, type Call, type DType, type PrimExpr, type Ramp, type Var, elementType, lanesOf } from "@tessera/ir";
import { IntrinsicSpellingError, spellIntrinsic } from "../c-family/intrinsics.js";
import { type EmitContext, fail } from "./context.js";
import { LANE_NAMES, cTypeOf, halfElementOf, isCudaVectorType, isFloatDType, supportedDTypes, vectorConstructor } from "./ctypes.js";
import { floatToHalf, halfBinary, halfCast, halfLiteral, halfToFloat, halfTypeFeature } from "./half-types.js";
import { float32Literal, float64Literal, intLiteral } from "../c-family/literals.js";
import { C_OPERATORS } from "../c-family/operators.js";

/** A vector access `buffer[Ramp(base, 1, lanes)]` that may use one reinterpreted vector pointer. */
export interface ContiguousAccess {
  readonly pointer: string;
  readonly base: PrimExpr;
  readonly vectorType: string;
}

export class ExprEmitter {
  /** Text substituted for `Let`-bound variables while their body is printed. */
  private readonly letText = new Map<Var, string>();

  constructor(private readonly ctx: EmitContext) {}

  /** The C type of `dtype`, or a CodegenError naming what is unsupported. */
  cType(dtype: DType, what: string): string {
    const t = cTypeOf(dtype);
    if (t === undefined) fail(this.ctx, `${what} has dtype ${dtype}, which the CUDA generator does not support (supported: ${supportedDTypes()})`);
    const header = halfTypeFeature(dtype);
    if (header !== undefined) this.ctx.features.add(header);
    return t;
  }

  expr(e: PrimExpr): string {
    if (lanesOf(e.dtype) > 1) return this.vector(e);
    switch (e.kind) {
      case "IntImm":
        return intLiteral(e.value, this.cType(e.dtype, `the constant ${e.value}`));
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
        return this.cast(e.value.dtype, e.dtype, this.expr(e.value));
      case "BufferLoad":
        return this.scalarLoad(e);
      case "Let":
        return this.withLet(e.variable, e.value, () => this.expr(e.body));
      case "Call":
        return this.call(e, (a) => this.expr(a));
      case "Ramp":
      case "Broadcast":
        return fail(this.ctx, `a ${e.kind} of one lane`);
    }
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
    return fail(this.ctx, `the constant ${value} has dtype ${dtype}, which the CUDA generator does not support (supported: ${supportedDTypes()})`);
  }

  /** The cast of scalar text `x` from scalar dtype `from` to `to`. */
  private cast(from: DType, to: DType, x: string): string {
    const target = this.cType(to, "a cast");
    if (halfElementOf(from) !== undefined) this.cType(from, "a cast");
    return halfCast(from, to, x, (dt) => this.cType(dt, "a cast")) ?? `((${target})${x})`;
  }

  private variable(v: Var): string {
    const text = this.letText.get(v) ?? this.ctx.threadIndex.get(v) ?? this.ctx.names.lookup(v);
    if (text === undefined) {
      fail(this.ctx, `variable ${v.name} is used but is not a parameter, loop variable, let binding or thread index of the kernel`);
    }
    return text;
  }

  private withLet<T>(v: Var, value: PrimExpr, body: () => T): T {
    // Let values are pure, so substituting the text keeps the meaning without a statement.
    this.letText.set(v, lanesOf(value.dtype) > 1 ? this.vector(value) : this.expr(value));
    try {
      return body();
    } finally {
      this.letText.delete(v);
    }
  }

  /**
   * One scalar binary operation on already printed operands. `a`/`b` (the IR operands, when
   * known) let integer floor division become plain `/` when both sides are provably positive.
   */
  binary(op: BinaryOp, operandType: DType, a: string, b: string, aExpr?: PrimExpr, bExpr?: PrimExpr): string {
    const half = halfElementOf(operandType);
    const halfText = half === undefined ? undefined : halfBinary(half, op, a, b);
    if (halfText !== undefined) return halfText;
    const float = isFloatDType(operandType);
    const f32 = operandType === "float32";
    switch (op) {
      case "mod":
        return float ? `${f32 ? "fmodf" : "fmod"}(${a}, ${b})` : `(${a} % ${b})`;
      case "floordiv":
        if (float) return `${f32 ? "floorf" : "floor"}((${a} / ${b}))`;
        return this.provablyNonNegativeDivision(aExpr, bExpr) ? `(${a} / ${b})` : this.floorHelper("tessera_floordiv", operandType, a, b);
      case "floormod":
        if (float) return `(${a} - (${f32 ? "floorf" : "floor"}((${a} / ${b})) * ${b}))`;
        return this.provablyNonNegativeDivision(aExpr, bExpr) ? `(${a} % ${b})` : this.floorHelper("tessera_floormod", operandType, a, b);
      case "min":
      case "max":
        if (!float) return `${op}(${a}, ${b})`;
        return `${f32 ? `f${op}f` : `f${op}`}(${a}, ${b})`;
      default: {
        const symbol = C_OPERATORS[op];
        if (symbol === undefined) return fail(this.ctx, `unknown binary operator ${op}`);
        return `(${a} ${symbol} ${b})`;
      }
    }
  }

  private provablyNonNegativeDivision(a: PrimExpr | undefined, b: PrimExpr | undefined): boolean {
    return a !== undefined && b !== undefined && this.ctx.facts.isNonNegative(a) && this.ctx.facts.isPositive(b);
  }

  private floorHelper(name: string, dtype: DType, a: string, b: string): string {
    if (dtype !== "int32" && dtype !== "int64") {
      fail(this.ctx, `floor division or modulo of ${dtype} operands that may be negative is not supported (only int32 and int64)`);
    }
    this.ctx.features.add("floordiv");
    return `${name}(${a}, ${b})`;
  }

  private call(e: Call, arg: (a: PrimExpr) => string): string {
    const args = e.args;
    const argDType = args[0]?.dtype === undefined ? e.dtype : elementType(args[0].dtype);
    if (e.op === "tvm_storage_sync") return fail(this.ctx, "T.tvm_storage_sync is a statement and cannot be part of an expression");
    if (e.op === "tf32_round") {
      this.ctx.features.add("tf32_round");
      return `tessera_tf32_round(${arg(args[0]!)})`;
    }
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
      if (err instanceof IntrinsicSpellingError) return fail(this.ctx, err.message);
      throw err;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Buffer access

  /** The pointer or array name a load/store of `buffer` uses, checking it is a flat access. */
  storageOf(access: { buffer: BufferLoad["buffer"]; indices: readonly PrimExpr[] }): string {
    const { buffer } = access;
    if (access.indices.length !== 1) {
      fail(this.ctx, `buffer ${buffer.name} is accessed with ${access.indices.length} indices; lowered kernels use flat one-dimensional buffers`);
    }
    if (!(buffer.elemOffset.kind === "IntImm" && buffer.elemOffset.value === 0)) {
      fail(this.ctx, `buffer ${buffer.name} has a non-zero element offset, which the CUDA generator does not support`);
    }
    const storage = this.ctx.storage.get(buffer.data);
    if (storage === undefined) {
      fail(this.ctx, `buffer ${buffer.name} is neither a kernel parameter nor allocated in the kernel`);
    }
    if (storage.dtype !== buffer.dtype) {
      fail(this.ctx, `buffer ${buffer.name} views ${storage.name} (${storage.dtype}) as ${buffer.dtype}; reinterpreting views are not supported`);
    }
    return storage.name;
  }

  private scalarLoad(e: BufferLoad): string {
    const name = this.storageOf(e);
    return `${name}[${this.expr(e.indices[0]!)}]`;
  }

  /**
   * A `Ramp(base, 1, lanes)` access of a scalar buffer whose base is provably a multiple of
   * `lanes`, so that `*(float4*)(A + base)` is aligned; undefined otherwise.
   */
  contiguousAccess(buffer: BufferLoad["buffer"], index: PrimExpr, valueType: DType): ContiguousAccess | undefined {
    if (index.kind !== "Ramp" || lanesOf(buffer.dtype) !== 1 || !isCudaVectorType(valueType)) return undefined;
    if (!isUnitStride(index)) return undefined;
    if (!this.ctx.facts.isMultipleOf(index.base, index.lanes)) return undefined;
    const pointer = this.storageOf({ buffer, indices: [index] });
    this.ctx.vectorAccessed.add(buffer.data);
    return { pointer, base: index.base, vectorType: cTypeOf(valueType)! };
  }

  // -------------------------------------------------------------------------------------------
  // Vectors

  /** A vector expression as a whole (its dtype must be a CUDA vector type). */
  vector(e: PrimExpr): string {
    const type = cTypeOf(e.dtype);
    if (type === undefined || !isCudaVectorType(e.dtype)) {
      fail(
        this.ctx,
        `a vector of dtype ${e.dtype} is needed as a value, but CUDA has no such vector type (supported: float16x2, bfloat16x2, float32x2, float32x4, float64x2, int32x2, int32x4)`,
      );
    }
    const header = halfTypeFeature(e.dtype);
    if (header !== undefined) this.ctx.features.add(header);
    switch (e.kind) {
      case "BufferLoad": {
        const contiguous = this.contiguousAccess(e.buffer, e.indices[0]!, e.dtype);
        if (contiguous !== undefined) {
          return `*(${contiguous.vectorType}*)(${contiguous.pointer} + ${this.expr(contiguous.base)})`;
        }
        if (lanesOf(e.buffer.dtype) > 1 && lanesOf(e.indices[0]!.dtype) === 1) return this.scalarLoad(e);
        break;
      }
      case "Binary":
        if (["add", "sub", "mul", "div"].includes(e.op)) {
          // cuda_fp16.h and cuda_bf16.h define the operators of __half2 and __nv_bfloat162.
          if (halfElementOf(e.dtype) === undefined) this.ctx.features.add(`vector_ops:${type}`);
          return `(${this.vector(e.a)} ${C_OPERATORS[e.op]!} ${this.vector(e.b)})`;
        }
        break;
      case "Var":
        return this.variable(e);
      case "Let":
        return this.withLet(e.variable, e.value, () => this.vector(e.body));
      default:
        break;
    }
    return this.makeVector(type, e);
  }

  private makeVector(type: string, e: PrimExpr): string {
    const lanes = Array.from({ length: lanesOf(e.dtype) }, (_, i) => this.lane(e, i));
    return `${vectorConstructor(type)}(${lanes.join(", ")})`;
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
        const index = e.indices[0];
        if (index !== undefined && lanesOf(index.dtype) > 1) {
          const name = this.storageOf(e);
          return `${name}[${this.lane(index, i)}]`;
        }
        break;
      }
      case "Binary":
        return this.binary(e.op, elementType(e.a.dtype), this.lane(e.a, i), this.lane(e.b, i));
      case "Not":
        return `(!${this.lane(e.a, i)})`;
      case "Select":
        return `(${this.lane(e.condition, i)} ? ${this.lane(e.trueValue, i)} : ${this.lane(e.falseValue, i)})`;
      case "Cast":
        return this.cast(elementType(e.value.dtype), elementType(e.dtype), this.lane(e.value, i));
      case "Call":
        return this.call(e, (a) => this.lane(a, i));
      case "Let":
        return this.withLet(e.variable, e.value, () => this.lane(e.body, i));
      default:
        break;
    }
    // A whole vector value (a variable, a vector-typed element): pick its component.
    const component = LANE_NAMES[i];
    if (component === undefined) fail(this.ctx, `lane ${i} of a ${e.dtype} value cannot be addressed`);
    return `${this.vector(e)}.${component}`;
  }

  private rampLane(e: Ramp, i: number): string {
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

/**
 * The expression half of the walker the CUDA, WGSL and Metal kernel emitters share. It dispatches
 * once on the kind of an expression — as a scalar (`expr`), as one lane of a vector (`lane`) and
 * as a whole vector (`vector`) — and a language subclass spells what differs: types, literals,
 * casts, selections, intrinsics, vector components, constructors and aligned vector accesses.
 * A new expression kind is added here, in one place.
 */
import { type BinaryOp, type BufferLoad, type Call, type DType, type PrimExpr, type Ramp, type Var, elementType, lanesOf } from "@tessera/ir";
import type { IndexFacts } from "../c-family/index-facts.js";
import type { NameTable } from "../c-family/names.js";
import { C_OPERATORS } from "../c-family/operators.js";
import { LetTexts, flatStorage } from "../shader/kernel-parts.js";

/** A pointer or array the kernel can index: a parameter or an allocation. */
export interface StorageRef {
  /** Its name in the generated source. */
  readonly name: string;
  /** Element type of the pointer/array. */
  readonly dtype: DType;
}

/** What the walkers of one kernel share, whatever the language. */
export interface WalkerContext<S extends StorageRef = StorageRef> {
  readonly kernelName: string;
  readonly names: NameTable;
  readonly facts: IndexFacts;
  /** By the storage's `data` variable. */
  readonly storage: Map<Var, S>;
  /** Text of thread indices, scalar parameters and other variables defined outside the body. */
  readonly predefined: Map<Var, string>;
}

/** A load or store: the buffer and its (flattened) indices. */
export interface BufferAccess {
  readonly buffer: BufferLoad["buffer"];
  readonly indices: readonly PrimExpr[];
}

/** The math functions a binary operator of float operands may need. */
export type FloatFunction = "floor" | "fmod" | "fmin" | "fmax";

export abstract class ExprWalker<C extends WalkerContext = WalkerContext> {
  private readonly lets = new LetTexts();
  /** The integer types the floor-division helpers are written for. */
  protected readonly floorHelperDTypes: readonly DType[] = ["int32"];

  constructor(protected readonly ctx: C) {}

  /** Throws the language's error, naming the kernel. */
  abstract fail(detail: string): never;
  /** The language's name in error messages. */
  protected abstract readonly language: string;

  // -------------------------------------------------------------------------------------------
  // Hooks: the spelling of one language

  /** The type of `dtype`, or an error naming `what` needs it. */
  abstract type(dtype: DType, what: string): string;
  abstract intLiteral(value: number, dtype: DType): string;
  abstract floatLiteral(value: number, dtype: DType): string;
  /** The cast of scalar text `x` from scalar dtype `from` to `to`. */
  protected abstract cast(from: DType, to: DType, x: string): string;
  /** `condition ? whenTrue : whenFalse`, both sides evaluated. */
  protected abstract select(condition: string, whenTrue: string, whenFalse: string): string;
  /** An intrinsic call; `arg` prints an argument (a scalar or the current lane). */
  protected abstract intrinsic(e: Call, arg: (a: PrimExpr) => string): string;
  /** The suffix that picks lane `i` of a `dtype` vector value (`.x`, `[0]`); fails past the last. */
  protected abstract component(i: number, dtype: DType): string;

  /** The whole-vector type of `dtype`. */
  protected vectorType(dtype: DType): string {
    return this.type(dtype, "a vector value");
  }

  /** A vector built from its lanes' texts. */
  protected construct(type: string, lanes: readonly string[]): string {
    return `${type}(${lanes.join(", ")})`;
  }

  /** A vector whose lanes are all `value`. */
  protected broadcast(type: string, value: string, _lanes: number): string {
    return `${type}(${value})`;
  }

  /** A vector operator on whole vectors, where the language has one; undefined: lane by lane. */
  protected vectorBinary(_e: PrimExpr & { kind: "Binary" }, _type: string): string | undefined {
    return undefined;
  }

  /**
   * The text of a vector access `buffer[Ramp(base, 1, lanes)]` made as one access (CUDA's
   * `*(float4*)(A + i)`, WGSL's `A[i >> 2u]`), for a load and a store alike; undefined when it
   * cannot be one.
   */
  alignedVectorAccess(_access: BufferAccess, _valueType: DType): string | undefined {
    return undefined;
  }

  /** The storage's name, checking the access is flat, at offset 0 and of known storage. */
  storageOf(access: BufferAccess): string {
    return flatStorage(access, this.ctx.storage, this.language, (detail) => this.fail(detail)).name;
  }

  /** The scalar element at printed index `index` of the storage `access` reads or writes. */
  element(access: BufferAccess, index: string): string {
    return `${this.storageOf(access)}[${index}]`;
  }

  /** A binary operation spelled by the language before the common spelling (CUDA's half types). */
  protected specialBinary(_op: BinaryOp, _operandType: DType, _a: string, _b: string): string | undefined {
    return undefined;
  }

  /** The name of a float math function for operands of `dtype`. */
  protected floatFunction(fn: FloatFunction, _dtype: DType): string {
    return fn === "fmin" ? "min" : fn === "fmax" ? "max" : fn;
  }

  /** Truncated remainder of float operands. */
  protected floatRemainder(a: string, b: string, dtype: DType): string {
    return `${this.floatFunction("fmod", dtype)}(${a}, ${b})`;
  }

  /** Records that the kernel calls the floor-division helpers. */
  protected abstract useFloorHelpers(): void;

  // -------------------------------------------------------------------------------------------
  // The walk

  expr(e: PrimExpr): string {
    if (lanesOf(e.dtype) > 1) return this.vector(e);
    switch (e.kind) {
      case "IntImm":
        return this.intLiteral(e.value, e.dtype);
      case "FloatImm":
        return this.floatLiteral(e.value, e.dtype);
      case "StringImm":
        return this.fail(`the string "${e.value}" can only be an argument of an intrinsic such as T.tvm_storage_sync`);
      case "Var":
        return this.variable(e);
      case "Binary":
        return this.binary(e.op, e.a.dtype, this.expr(e.a), this.expr(e.b), e.a, e.b);
      case "Not":
        return `(!${this.expr(e.a)})`;
      case "Select":
        return this.select(this.expr(e.condition), this.expr(e.trueValue), this.expr(e.falseValue));
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
        return this.fail(`a ${e.kind} of one lane`);
    }
  }

  /** A vector expression as a whole value. */
  vector(e: PrimExpr): string {
    const type = this.vectorType(e.dtype);
    switch (e.kind) {
      case "Var":
        return this.variable(e);
      case "Let":
        return this.withLet(e.variable, e.value, () => this.vector(e.body));
      case "BufferLoad": {
        const index = e.indices[0]!;
        // An element of a buffer of vectors.
        if (lanesOf(index.dtype) === 1) return `${this.storageOf(e)}[${this.expr(index)}]`;
        const whole = this.alignedVectorAccess(e, e.dtype);
        if (whole !== undefined) return whole;
        break;
      }
      case "Broadcast":
        return this.broadcast(type, this.expr(e.value), e.lanes);
      case "Binary": {
        const whole = this.vectorBinary(e, type);
        if (whole !== undefined) return whole;
        break;
      }
      default:
        break;
    }
    return this.construct(
      type,
      Array.from({ length: lanesOf(e.dtype) }, (_, i) => this.lane(e, i)),
    );
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
        return this.select(this.lane(e.condition, i), this.lane(e.trueValue, i), this.lane(e.falseValue, i));
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
    const component = this.component(i, e.dtype);
    return `${this.vector(e)}${component}`;
  }

  /** Lane `i` of a ramp: `base + stride * i`. */
  protected rampLane(e: Ramp, i: number): string {
    if (i === 0) return this.expr(e.base);
    if (e.stride.kind === "IntImm") {
      const offset = e.stride.value * i;
      if (e.base.kind === "IntImm") return this.intLiteral(e.base.value + offset, e.base.dtype);
      return `(${this.expr(e.base)} + ${this.intLiteral(offset, e.base.dtype)})`;
    }
    return `(${this.expr(e.base)} + (${this.expr(e.stride)} * ${this.intLiteral(i, e.base.dtype)}))`;
  }

  protected variable(v: Var): string {
    const text = this.lets.get(v) ?? this.ctx.predefined.get(v) ?? this.ctx.names.lookup(v);
    if (text === undefined) {
      this.fail(`variable ${v.name} is used but is not a parameter, loop variable, let binding or thread index of the kernel`);
    }
    return text;
  }

  /** Let values are pure: their text is substituted for the variable while the body is printed. */
  private withLet<T>(v: Var, value: PrimExpr, body: () => T): T {
    return this.lets.with(v, lanesOf(value.dtype) > 1 ? this.vector(value) : this.expr(value), body);
  }

  private call(e: Call, arg: (a: PrimExpr) => string): string {
    if (e.op === "tvm_storage_sync") return this.fail("T.tvm_storage_sync is a statement and cannot be part of an expression");
    return this.intrinsic(e, arg);
  }

  /**
   * One scalar binary operation on printed operands. `aExpr`/`bExpr` (the IR operands, when
   * known) let integer floor division be plain `/` when both sides are provably positive.
   */
  binary(op: BinaryOp, operandType: DType, a: string, b: string, aExpr?: PrimExpr, bExpr?: PrimExpr): string {
    const special = this.specialBinary(op, operandType, a, b);
    if (special !== undefined) return special;
    const float = /^b?float/.test(elementType(operandType));
    switch (op) {
      case "mod":
        return float ? this.floatRemainder(a, b, operandType) : `(${a} % ${b})`;
      case "floordiv":
        if (float) return `${this.floatFunction("floor", operandType)}((${a} / ${b}))`;
        return this.nonNegativeDivision(aExpr, bExpr) ? `(${a} / ${b})` : this.floorHelper("tessera_floordiv", operandType, a, b);
      case "floormod":
        if (float) return `(${a} - (${this.floatFunction("floor", operandType)}((${a} / ${b})) * ${b}))`;
        return this.nonNegativeDivision(aExpr, bExpr) ? `(${a} % ${b})` : this.floorHelper("tessera_floormod", operandType, a, b);
      case "min":
      case "max":
        return `${float ? this.floatFunction(op === "min" ? "fmin" : "fmax", operandType) : op}(${a}, ${b})`;
      default: {
        const symbol = C_OPERATORS[op];
        if (symbol === undefined) return this.fail(`the binary operator ${op} has no ${this.language} translation`);
        return `(${a} ${symbol} ${b})`;
      }
    }
  }

  private nonNegativeDivision(a: PrimExpr | undefined, b: PrimExpr | undefined): boolean {
    return a !== undefined && b !== undefined && this.ctx.facts.isNonNegative(a) && this.ctx.facts.isPositive(b);
  }

  private floorHelper(name: string, dtype: DType, a: string, b: string): string {
    if (!this.floorHelperDTypes.includes(dtype)) {
      this.fail(`floor division or modulo of ${dtype} operands that may be negative is not supported (only ${this.floorHelperDTypes.join(" and ")})`);
    }
    this.useFloorHelpers();
    return `${name}(${a}, ${b})`;
  }
}

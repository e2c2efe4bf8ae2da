/**
 * A reference evaluator with each dtype's own semantics, on BigInt: unsigned integers wrap
 * round 2^bits, signed overflow is undefined behaviour (as in C and as TVM's simplifier assumes),
 * casts to integers wrap (two's complement), `div`/`mod` truncate and `floordiv`/`floormod` floor.
 *
 * `strict` evaluation reports undefined behaviour (signed overflow of any intermediate, division
 * by zero, a shift past the width) as `undefined`: such points say nothing about a rewrite.
 * Lenient evaluation computes signed intermediates as mathematical integers instead, so a
 * simplified expression is judged by its value, not by how it got there.
 */
import { dtypeInfo } from "../../src/dtype.js";
import type { PrimExpr, Var } from "../../src/expr.js";

export type ExactEnv = ReadonlyMap<Var, bigint>;

interface IntType {
  readonly signed: boolean;
  readonly bits: number;
  readonly isBool: boolean;
}

function intType(dt: string): IntType {
  const info = dtypeInfo(dt);
  if (info.code === "bool") return { signed: false, bits: 1, isBool: true };
  if (info.code !== "int" && info.code !== "uint") throw new Error(`exactEval: ${dt} is not an integer dtype`);
  return { signed: info.code === "int", bits: info.bits, isBool: false };
}

export function dtypeMin(dt: string): bigint {
  const t = intType(dt);
  return t.signed ? -(1n << BigInt(t.bits - 1)) : 0n;
}

export function dtypeMax(dt: string): bigint {
  const t = intType(dt);
  return t.isBool ? 1n : t.signed ? (1n << BigInt(t.bits - 1)) - 1n : (1n << BigInt(t.bits)) - 1n;
}

/** `v` brought into dt's range as the hardware does: modulo 2^bits (two's complement if signed). */
export function wrapTo(v: bigint, dt: string): bigint {
  const t = intType(dt);
  if (t.isBool) return v !== 0n ? 1n : 0n;
  const m = 1n << BigInt(t.bits);
  let r = ((v % m) + m) % m;
  if (t.signed && r > dtypeMax(dt)) r -= m;
  return r;
}

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

class Undefined extends Error {}

/**
 * `unsignedNoWrap`: unsigned arithmetic as mathematical integers (the assertion of TVM's
 * `allow_uint_as_index`): strict evaluation reports a value leaving the dtype's range as undefined.
 */
export function evalExact(e: PrimExpr, env: ExactEnv, strict: boolean, unsignedNoWrap = false): bigint | undefined {
  try {
    return new ExactEvaluator(env, strict, unsignedNoWrap).eval(e);
  } catch (err) {
    if (err instanceof Undefined) return undefined;
    throw err;
  }
}

class ExactEvaluator {
  constructor(
    private readonly env: ExactEnv,
    private readonly strict: boolean,
    private readonly unsignedNoWrap: boolean,
  ) {}

  /** The result of an arithmetic op of dtype dt: unsigned wraps, signed overflow is UB (strict). */
  private result(v: bigint, dt: string): bigint {
    const t = intType(dt);
    if (t.isBool) return v !== 0n ? 1n : 0n;
    if (!t.signed) return this.unsignedNoWrap ? this.unwrapped(v, dt) : wrapTo(v, dt);
    if (this.strict && (v < dtypeMin(dt) || v > dtypeMax(dt))) throw new Undefined();
    return v;
  }

  /** An unsigned value under the no-wrap assertion: kept as it is, undefined (strict) out of range. */
  private unwrapped(v: bigint, dt: string): bigint {
    if (this.strict && (v < 0n || v > dtypeMax(dt))) throw new Undefined();
    return v;
  }

  eval(e: PrimExpr): bigint {
    switch (e.kind) {
      case "IntImm":
        return intType(e.dtype).signed || this.unsignedNoWrap ? BigInt(e.value) : wrapTo(BigInt(e.value), e.dtype);
      case "Var": {
        const v = this.env.get(e);
        if (v === undefined) throw new Error(`exactEval: no value for ${e.name}`);
        return v;
      }
      case "Not":
        return this.eval(e.a) === 0n ? 1n : 0n;
      case "Select":
        return this.choose(e.condition, e.trueValue, e.falseValue);
      case "Cast": {
        const v = this.eval(e.value);
        const t = intType(e.dtype);
        return this.unsignedNoWrap && !t.signed && !t.isBool ? this.unwrapped(v, e.dtype) : wrapTo(v, e.dtype);
      }
      case "Binary":
        return this.binary(e.op, e.a, e.b, e.dtype);
      case "Call":
        return this.call(e.op, e.args, e.dtype);
      default:
        throw new Error(`exactEval: cannot evaluate ${e.kind}`);
    }
  }

  /** Strict evaluation evaluates both arms (undefined behaviour in either taints the point). */
  private choose(c: PrimExpr, t: PrimExpr, f: PrimExpr): bigint {
    const cond = this.eval(c) !== 0n;
    if (this.strict) {
      const [tv, fv] = [this.eval(t), this.eval(f)];
      return cond ? tv : fv;
    }
    return this.eval(cond ? t : f);
  }

  private binary(op: string, ae: PrimExpr, be: PrimExpr, dt: string): bigint {
    const a = this.eval(ae);
    const b = this.eval(be);
    switch (op) {
      case "add":
        return this.result(a + b, dt);
      case "sub":
        return this.result(a - b, dt);
      case "mul":
        return this.result(a * b, dt);
      case "div":
        if (b === 0n) throw new Undefined();
        return this.result(a / b, dt);
      case "mod":
        if (b === 0n) throw new Undefined();
        return this.result(a % b, dt);
      case "floordiv":
        if (b === 0n) throw new Undefined();
        return this.result(floorDiv(a, b), dt);
      case "floormod":
        if (b === 0n) throw new Undefined();
        return this.result(a - floorDiv(a, b) * b, dt);
      case "min":
        // biome-ignore lint/complexity/useMathMinMax: BigInt operands (Math.min takes numbers)
        return a < b ? a : b;
      case "max":
        // biome-ignore lint/complexity/useMathMinMax: BigInt operands (Math.max takes numbers)
        return a > b ? a : b;
      case "eq":
        return a === b ? 1n : 0n;
      case "ne":
        return a !== b ? 1n : 0n;
      case "lt":
        return a < b ? 1n : 0n;
      case "le":
        return a <= b ? 1n : 0n;
      case "gt":
        return a > b ? 1n : 0n;
      case "ge":
        return a >= b ? 1n : 0n;
      case "and":
        return a !== 0n && b !== 0n ? 1n : 0n;
      case "or":
        return a !== 0n || b !== 0n ? 1n : 0n;
      default:
        throw new Error(`exactEval: unknown op ${op}`);
    }
  }

  private call(op: string, args: readonly PrimExpr[], dt: string): bigint {
    if (op === "if_then_else") return this.choose(args[0]!, args[1]!, args[2]!);
    const [a, b] = args.map((x) => this.eval(x)) as [bigint, bigint];
    const bits = BigInt(intType(dt).bits);
    switch (op) {
      case "shift_left":
        if (b < 0n || b >= bits) throw new Undefined();
        return this.result(a << b, dt);
      case "shift_right":
        if (b < 0n || b >= bits) throw new Undefined();
        return a >> b;
      case "bitwise_and":
        return a & b;
      case "bitwise_or":
        return a | b;
      case "bitwise_xor":
        return a ^ b;
      case "bitwise_not":
        return wrapTo(~a, dt);
      default:
        throw new Error(`exactEval: unknown call ${op}`);
    }
  }
}

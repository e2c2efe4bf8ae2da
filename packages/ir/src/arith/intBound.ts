/**
 * Constant integer bounds of expressions (TVM's `ConstIntBound`): an inclusive `[min, max]` that
 * holds for every value the expression can take, with ±Infinity where nothing is known.
 * Index arithmetic is treated as mathematical integers (no int32 wraparound).
 */
import { bitsOf, dtypeInfo, type DType } from "../dtype.js";
import { type PrimExpr, type Var, add, mul, sub } from "../expr.js";
import { scalableLanesExpr } from "../vscale.js";
import { ceilLog2Argument, ceilLog2Value } from "./ceil-log2.js";
import { gcdInt } from "./gcd.js";
import { modularSetOf } from "./modularSet.js";

export interface IntBound {
  readonly min: number;
  readonly max: number;
}

export const UNBOUNDED_INT_BOUND: IntBound = Object.freeze({ min: -Infinity, max: Infinity });

/** What the bound analysis may know about variables. */
export interface VarBoundFacts {
  boundOf(v: Var): IntBound | undefined;
  /**
   * Bounds of compound expressions assumed by a constraint (`1 <= a % 58` bounds `a % 58`, as
   * TVM's ConstIntBound constraints do); absent while there are none.
   */
  readonly assumedBoundOf?: ((e: PrimExpr) => IntBound | undefined) | undefined;
}

export const NO_FACTS: VarBoundFacts = { boundOf: () => undefined };

export function pointBound(value: number): IntBound {
  return { min: value, max: value };
}

/** `dtypeBound` by dtype: bounds are asked for at every leaf of every bound evaluation. */
const dtypeBounds = new Map<DType, IntBound>();

/** The range of values a dtype can hold; unbounded for floats, handles and 64-bit integers. */
export function dtypeBound(dt: DType): IntBound {
  let b = dtypeBounds.get(dt);
  if (b === undefined) {
    b = dtypeBoundUncached(dt);
    dtypeBounds.set(dt, b);
  }
  return b;
}

function dtypeBoundUncached(dt: DType): IntBound {
  const info = dtypeInfo(dt);
  if (info.code === "bool") return { min: 0, max: 1 };
  if (info.code === "int" && info.bits <= 32) return { min: -(2 ** (info.bits - 1)), max: 2 ** (info.bits - 1) - 1 };
  if (info.code === "uint") return { min: 0, max: info.bits <= 32 ? 2 ** info.bits - 1 : Infinity };
  return UNBOUNDED_INT_BOUND;
}

export function isIntegerDType(dt: DType): boolean {
  const c = dtypeInfo(dt).code;
  return c === "int" || c === "uint";
}

/** Product that treats 0 · ∞ as 0 (a zero factor annihilates whatever the other side is). */
function mulEnd(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : a * b;
}

function hull(values: readonly number[]): IntBound {
  if (values.some((v) => Number.isNaN(v))) return UNBOUNDED_INT_BOUND;
  return { min: Math.min(...values), max: Math.max(...values) };
}

export function addBounds(a: IntBound, b: IntBound): IntBound {
  return { min: a.min + b.min, max: a.max + b.max };
}

export function subBounds(a: IntBound, b: IntBound): IntBound {
  return { min: a.min - b.max, max: a.max - b.min };
}

export function mulBounds(a: IntBound, b: IntBound): IntBound {
  return hull([mulEnd(a.min, b.min), mulEnd(a.min, b.max), mulEnd(a.max, b.min), mulEnd(a.max, b.max)]);
}

export function scaleBound(a: IntBound, k: number): IntBound {
  if (k === 0) return pointBound(0);
  return k > 0 ? { min: a.min * k, max: a.max * k } : { min: a.max * k, max: a.min * k };
}

/**
 * Bounds of `shift_left`, `shift_right` (floor division by 2^b, monotone in a and b) and of
 * `bitwise_and` of non-negative operands; undefined when nothing better than the dtype is known.
 */
function bitOperationBound(op: string, a: IntBound, b: IntBound): IntBound | undefined {
  const shiftable = b.min >= 0 && b.max <= 62;
  if (op === "shift_right" && shiftable) {
    const q = (x: number, k: number): number => Math.floor(x / 2 ** k);
    return hull([q(a.min, b.min), q(a.min, b.max), q(a.max, b.min), q(a.max, b.max)]);
  }
  if (op === "shift_left" && shiftable) return mulBounds(a, { min: 2 ** b.min, max: 2 ** b.max });
  if (op === "bitwise_and") {
    if (a.min >= 0 && b.min >= 0) return { min: 0, max: Math.min(a.max, b.max) };
    if (a.min >= 0) return { min: 0, max: a.max };
    if (b.min >= 0) return { min: 0, max: b.max };
  }
  return undefined;
}

export function unionBounds(a: IntBound, b: IntBound): IntBound {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

export function intersectBounds(a: IntBound, b: IntBound): IntBound {
  return { min: Math.max(a.min, b.min), max: Math.min(a.max, b.max) };
}

const floorDivNum = (a: number, b: number): number => Math.floor(a / b);
const truncDivNum = (a: number, b: number): number => Math.trunc(a / b);

/**
 * Division bounds. A divisor range that excludes zero has its extremes at the corners (a/d is
 * monotone in each argument on such a rectangle and floor/trunc are monotone). A divisor range
 * containing zero only tells us |quotient| ≤ |dividend|, since the divisor is an integer ≠ 0.
 */
function divBounds(a: IntBound, d: IntBound, round: (x: number, y: number) => number): IntBound {
  if (d.min > 0 || d.max < 0) {
    return hull([round(a.min, d.min), round(a.min, d.max), round(a.max, d.min), round(a.max, d.max)]);
  }
  // The divisor is never 0 (division by zero is undefined): the parts of its range on either side.
  const parts: IntBound[] = [];
  if (d.min < 0) parts.push(divBounds(a, { min: d.min, max: -1 }, round));
  if (d.max > 0) parts.push(divBounds(a, { min: 1, max: d.max }, round));
  if (parts.length === 0) return UNBOUNDED_INT_BOUND;
  return parts.reduce(unionBounds);
}

function floorModBounds(a: IntBound, d: IntBound): IntBound {
  if (d.min === d.max && d.min !== 0 && Number.isFinite(d.min)) {
    const c = d.min;
    // Whole range inside one period: the remainder is a shifted copy of the dividend.
    if (Number.isFinite(a.min) && Number.isFinite(a.max) && floorDivNum(a.min, c) === floorDivNum(a.max, c)) {
      const shift = floorDivNum(a.min, c) * c;
      return { min: a.min - shift, max: a.max - shift };
    }
  }
  if (d.min > 0) {
    const top = d.max - 1;
    return a.min >= 0 ? { min: 0, max: Math.min(a.max, top) } : { min: 0, max: top };
  }
  if (d.max < 0) return { min: d.min + 1, max: 0 };
  // The remainder lies between 0 and the divisor (exclusive), on the divisor's side.
  return { min: Math.min(0, d.min + 1), max: Math.max(0, d.max - 1) };
}

/** TVM's AssumeNoZeroDivisor: a divisor range starting at 0 starts at 1 (division by zero is undefined). */
function nonZeroDivisor(d: IntBound): IntBound {
  return d.min === 0 && d.max >= 1 ? { min: 1, max: d.max } : d;
}

function truncModBounds(a: IntBound, d: IntBound): IntBound {
  const limit = Math.min(Math.abs(d.min), Math.abs(d.max));
  // |a| below every |d|: the remainder is a itself.
  if (!(d.min <= 0 && d.max >= 0) && a.min > -limit && a.max < limit) return a;
  // The remainder has the dividend's sign and is smaller in magnitude than both operands.
  const m = Math.max(Math.abs(d.min), Math.abs(d.max)) - 1;
  return { min: Math.max(Math.min(a.min, 0), -m), max: Math.min(Math.max(a.max, 0), m) };
}

/**
 * Bounds of `e` given what `facts` knows about its variables. `cache` (bounds of compound nodes by
 * identity, filled here) may be shared between calls while the facts stay the same.
 */
export function constIntBoundOf(e: PrimExpr, facts: VarBoundFacts = NO_FACTS, cache?: Map<PrimExpr, IntBound>): IntBound {
  return new BoundEvaluator(facts, cache).bound(e);
}

class BoundEvaluator {
  constructor(
    private readonly facts: VarBoundFacts,
    private readonly cache?: Map<PrimExpr, IntBound>,
  ) {}

  bound(e: PrimExpr): IntBound {
    const assumed = this.facts.assumedBoundOf;
    if (assumed !== undefined && e.kind !== "IntImm" && e.kind !== "Var") {
      const extra = assumed(e);
      if (extra !== undefined) return intersectBounds(this.cachedBound(e), extra);
    }
    return this.cachedBound(e);
  }

  private cachedBound(e: PrimExpr): IntBound {
    const cache = this.cache;
    if (cache === undefined || e.kind === "IntImm" || e.kind === "Var" || e.kind === "Let") return this.evaluate(e);
    let b = cache.get(e);
    if (b === undefined) {
      b = this.evaluate(e);
      cache.set(e, b);
    }
    return b;
  }

  private evaluate(e: PrimExpr): IntBound {
    switch (e.kind) {
      case "IntImm":
        return pointBound(e.value);
      case "FloatImm":
        return Number.isFinite(e.value) ? { min: Math.floor(e.value), max: Math.ceil(e.value) } : UNBOUNDED_INT_BOUND;
      case "StringImm":
        return UNBOUNDED_INT_BOUND;
      case "Var":
        return this.facts.boundOf(e) ?? dtypeBound(e.dtype);
      case "Binary":
        return this.binaryBound(e.op, e.a, e.b, e.dtype);
      case "Not":
        return { min: 0, max: 1 };
      case "Select":
        return unionBounds(this.bound(e.trueValue), this.bound(e.falseValue));
      case "Cast":
        return this.castBound(e.value, e.dtype);
      case "Let": {
        const valueBound = this.bound(e.value);
        const outer = this.facts;
        const inner: VarBoundFacts = { boundOf: (v) => (v === e.variable ? valueBound : outer.boundOf(v)) };
        return new BoundEvaluator(inner).bound(e.body);
      }
      case "Call":
        if (e.op === "if_then_else" && e.args.length === 3) {
          return unionBounds(this.bound(e.args[1]!), this.bound(e.args[2]!));
        }
        if (e.args.length === 2 && isIntegerDType(e.dtype)) {
          const b = bitOperationBound(e.op, this.bound(e.args[0]!), this.bound(e.args[1]!));
          const range = dtypeBound(e.dtype);
          // Unsigned shifts wrap: a bound past the range says nothing.
          if (b !== undefined) return dtypeInfo(e.dtype).code === "uint" && !(b.min >= range.min && b.max <= range.max) ? range : intersectBounds(b, range);
        }
        return dtypeBound(e.dtype);
      case "Broadcast":
        return this.bound(e.value);
      case "Ramp":
        // Lanes are base + k·stride for k in [0, lanes - 1]: bounds are element-wise. Scalable
        // lanes (vscale × k) have no known count; as TVM, the last lane is base + (vscale·k - 1)·stride.
        if (e.lanes < 0) return unionBounds(this.bound(e.base), this.bound(add(e.base, mul(sub(scalableLanesExpr(e.lanes), 1), e.stride))));
        return addBounds(this.bound(e.base), mulBounds(this.bound(e.stride), { min: 0, max: e.lanes - 1 }));
      case "BufferLoad":
        return dtypeBound(e.dtype);
    }
  }

  /** `ceil(log2(x))` is non-decreasing in x: its values at the ends of x's bound, when x > 0 there. */
  private ceilLog2Bound(value: PrimExpr): IntBound | undefined {
    const x = ceilLog2Argument(value);
    if (x === undefined) return undefined;
    const b = x.kind === "FloatImm" ? { min: x.value, max: x.value } : this.bound(x);
    const [min, max] = [ceilLog2Value(b.min, x.dtype), ceilLog2Value(b.max, x.dtype)];
    return min === undefined || max === undefined ? undefined : { min, max };
  }

  private castBound(value: PrimExpr, target: DType): IntBound {
    const targetRange = dtypeBound(target);
    if (dtypeInfo(target).code === "float" && isIntegerDType(value.dtype)) {
      // Integers up to 2^24 (float32) or 2^53 (float64) convert exactly.
      const exact = 2 ** (bitsOf(target) >= 64 ? 53 : bitsOf(target) >= 32 ? 24 : 11);
      const inner = this.bound(value);
      return inner.min >= -exact && inner.max <= exact ? inner : UNBOUNDED_INT_BOUND;
    }
    if (!isIntegerDType(target) && dtypeInfo(target).code !== "bool") return UNBOUNDED_INT_BOUND;
    if (dtypeInfo(target).code === "bool") return targetRange;
    const ceilLog2 = value.kind === "Call" && dtypeInfo(target).code === "int" ? this.ceilLog2Bound(value) : undefined;
    if (ceilLog2 !== undefined) return intersectBounds(ceilLog2, targetRange);
    const inner = this.bound(value);
    const source = dtypeInfo(value.dtype).code;
    // Float → int truncates toward zero; integers keep their value when it fits the target.
    const b = source === "float" ? { min: Math.trunc(inner.min), max: Math.trunc(inner.max) } : inner;
    if (Number.isNaN(b.min) || Number.isNaN(b.max)) return targetRange;
    if (b.min >= targetRange.min && b.max <= targetRange.max) return b;
    return bitsOf(target) >= 64 && source !== "float" ? b : targetRange;
  }

  private binaryBound(op: string, aExpr: PrimExpr, bExpr: PrimExpr, dt: DType): IntBound {
    if (dtypeInfo(dt).code === "bool") return { min: 0, max: 1 };
    if (!isIntegerDType(dt)) return UNBOUNDED_INT_BOUND;
    let b = this.arithBound(op, this.bound(aExpr), this.bound(bExpr), dt);
    if ((op === "floormod" || op === "mod") && bExpr.kind === "IntImm" && bExpr.value > 0) b = this.residueBound(op, aExpr, bExpr.value, b);
    // Unsigned arithmetic wraps: a result that may leave the dtype's range can be anything in it.
    if (dtypeInfo(dt).code === "uint") {
      const range = dtypeBound(dt);
      if (!(b.min >= range.min && b.max <= range.max)) return range;
    }
    return b;
  }

  /**
   * A remainder by c > 0 of a value known congruent to r modulo g (its modular set) takes only the
   * values r, r + g, …: `(n*320 + 255) % 256` lies in [63, 255].
   */
  private residueBound(op: string, aExpr: PrimExpr, c: number, b: IntBound): IntBound {
    const a = this.bound(aExpr);
    // A variable is congruent to nothing here (no substitutions, no congruences are asked for).
    if (b.min === b.max || aExpr.kind === "Var") return b;
    const m = modularSetOf(aExpr, { substitutionOf: () => undefined, isNonNegative: (x) => this.bound(x).min >= 0 });
    let g = m.coeff === 0 ? c : gcdInt(m.coeff, c);
    // An unsigned dividend wraps modulo 2^bits: only power-of-two congruences survive.
    if (dtypeInfo(aExpr.dtype).code === "uint") g = gcdInt(g, 2 ** Math.min(bitsOf(aExpr.dtype), 52));
    if (g <= 1) return b;
    // Residues modulo c of a value ≡ base (mod g): r, r + g, … below c.
    const residues = (base: number): IntBound => {
      const r = ((base % g) + g) % g;
      return { min: r, max: r + g * Math.floor((c - 1 - r) / g) };
    };
    const positive = residues(m.base);
    // A truncating remainder of a negative dividend is minus the residue of its negation.
    const negative = ((n) => ({ min: -n.max, max: -n.min }))(residues(-m.base));
    if (op === "floormod" || a.min >= 0) return intersectBounds(b, positive);
    if (a.max <= 0) return intersectBounds(b, negative);
    return intersectBounds(b, unionBounds(positive, negative));
  }

  private arithBound(op: string, a: IntBound, b: IntBound, dt: DType): IntBound {
    switch (op) {
      case "add":
        return addBounds(a, b);
      case "sub":
        return subBounds(a, b);
      case "mul":
        return mulBounds(a, b);
      case "floordiv":
        return divBounds(a, b, floorDivNum);
      case "div":
        return divBounds(a, b, truncDivNum);
      case "floormod":
        return floorModBounds(a, nonZeroDivisor(b));
      case "mod":
        return truncModBounds(a, nonZeroDivisor(b));
      case "min":
        return { min: Math.min(a.min, b.min), max: Math.min(a.max, b.max) };
      case "max":
        return { min: Math.max(a.min, b.min), max: Math.max(a.max, b.max) };
      default:
        return dtypeBound(dt);
    }
  }
}

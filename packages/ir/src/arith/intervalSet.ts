/**
 * Symbolic integer interval sets (TVM's `IntervalSet`) and `evalSet`, which bounds the values of an
 * expression while some variables range over sets and the others stay symbolic.
 * Ends are inclusive; `NEG_INF` / `POS_INF` stand for a missing bound. Every rule over-approximates,
 * so the true values always lie inside the result.
 */
import { IRError } from "../errors.js";
import { type DType, dtypeInfo } from "../dtype.js";
import { type PrimExpr, type Var, add, cast, floordiv, floormod, intImm, max, min, mul, sub } from "../expr.js";
import { substitute, usesVar } from "../functor.js";
import type { Range } from "../stmt.js";
import { Analyzer } from "./analyzer.js";
import { dtypeBound, isIntegerDType } from "./intBound.js";

export interface NegativeInfinity {
  readonly kind: "NegInf";
}
export interface PositiveInfinity {
  readonly kind: "PosInf";
}
export const NEG_INF: NegativeInfinity = Object.freeze({ kind: "NegInf" });
export const POS_INF: PositiveInfinity = Object.freeze({ kind: "PosInf" });

export type IntervalLow = PrimExpr | NegativeInfinity;
export type IntervalHigh = PrimExpr | PositiveInfinity;

export interface IntervalSet {
  readonly min: IntervalLow;
  readonly max: IntervalHigh;
}

export const UNBOUNDED_INTERVAL: IntervalSet = Object.freeze({ min: NEG_INF, max: POS_INF });

export function intervalSet(lo: IntervalLow, hi: IntervalHigh): IntervalSet {
  return { min: lo, max: hi };
}

export function pointInterval(e: PrimExpr): IntervalSet {
  return { min: e, max: e };
}

export function isFiniteInterval(s: IntervalSet): s is { min: PrimExpr; max: PrimExpr } {
  return s.min.kind !== "NegInf" && s.max.kind !== "PosInf";
}

/** `[r.min, r.min + r.extent - 1]`. */
export function intervalFromRange(r: Range, analyzer: Analyzer = new Analyzer()): IntervalSet {
  return { min: analyzer.simplify(r.min), max: analyzer.simplify(sub(add(r.min, r.extent), 1)) };
}

/** The Range `{min, extent = max - min + 1}` of a finite interval. */
export function rangeOfInterval(s: IntervalSet, analyzer: Analyzer = new Analyzer()): Range {
  if (!isFiniteInterval(s)) throw new IRError("rangeOfInterval: the interval is unbounded, so it has no finite range");
  return { min: s.min, extent: analyzer.simplify(add(sub(s.max, s.min), 1)) };
}

/** The interval hull of two sets. */
export function unionIntervals(a: IntervalSet, b: IntervalSet, analyzer: Analyzer = new Analyzer()): IntervalSet {
  const lo = a.min.kind === "NegInf" || b.min.kind === "NegInf" ? NEG_INF : analyzer.simplify(min(a.min, b.min));
  const hi = a.max.kind === "PosInf" || b.max.kind === "PosInf" ? POS_INF : analyzer.simplify(max(a.max, b.max));
  return { min: lo, max: hi };
}

/** The intersection of two sets (the ends are min/max expressions when not decidable). */
export function intersectIntervals(a: IntervalSet, b: IntervalSet, analyzer: Analyzer = new Analyzer()): IntervalSet {
  const lo = a.min.kind === "NegInf" ? b.min : b.min.kind === "NegInf" ? a.min : analyzer.simplify(max(a.min, b.min));
  const hi = a.max.kind === "PosInf" ? b.max : b.max.kind === "PosInf" ? a.max : analyzer.simplify(min(a.max, b.max));
  return { min: lo, max: hi };
}

/**
 * The interval hull of the values of integer expression `e` when each variable in `domMap` ranges
 * over its set (other variables stay symbolic). Sound: falls back to the dtype's range, or to
 * everything, where no rule applies.
 */
export function evalSet(e: PrimExpr, domMap: ReadonlyMap<Var, IntervalSet>, analyzer: Analyzer = new Analyzer()): IntervalSet {
  return new SetEvaluator(domMap, analyzer).eval(e);
}

type Sign = "nonneg" | "nonpos" | "unknown";

class SetEvaluator {
  constructor(
    private readonly domMap: ReadonlyMap<Var, IntervalSet>,
    private readonly analyzer: Analyzer,
  ) {}

  /** Whether a subtree uses a relaxed variable, by node (each subtree is looked at once). */
  private readonly relaxedUse = new Map<PrimExpr, boolean>();

  private usesRelaxed(e: PrimExpr): boolean {
    switch (e.kind) {
      case "IntImm":
      case "FloatImm":
      case "StringImm":
        return false;
      case "Var":
        return this.domMap.has(e);
      case "Binary": {
        let uses = this.relaxedUse.get(e);
        if (uses === undefined) {
          uses = this.usesRelaxed(e.a) || this.usesRelaxed(e.b);
          this.relaxedUse.set(e, uses);
        }
        return uses;
      }
      default:
        return usesVar(e, (v) => this.domMap.has(v));
    }
  }

  eval(e: PrimExpr): IntervalSet {
    if (!this.usesRelaxed(e)) return pointInterval(this.analyzer.simplify(e));
    if (!isIntegerDType(e.dtype) || dtypeInfo(e.dtype).lanes !== 1) return this.fallback(e);
    switch (e.kind) {
      case "Var":
        return this.domMap.get(e) ?? pointInterval(e);
      case "Binary":
        return this.binary(e.op, e.a, e.b) ?? this.fallback(e);
      case "Select":
        return unionIntervals(this.eval(e.trueValue), this.eval(e.falseValue), this.analyzer);
      case "Call":
        if (e.op === "if_then_else" && e.args.length === 3) {
          return unionIntervals(this.eval(e.args[1]!), this.eval(e.args[2]!), this.analyzer);
        }
        return this.fallback(e);
      case "Let":
        return this.eval(substitute(e.body, (v) => (v === e.variable ? e.value : undefined)));
      case "Cast":
        // A cast into a type that holds every source value is the identity on values.
        if (isIntegerDType(e.value.dtype) && fitsIn(e.value.dtype, e.dtype)) {
          return this.mapEnds(this.eval(e.value), (x) => cast(e.dtype, x), "nonneg");
        }
        return this.fallback(e);
      default:
        return this.fallback(e);
    }
  }

  private fallback(e: PrimExpr): IntervalSet {
    if (!isIntegerDType(e.dtype)) return UNBOUNDED_INTERVAL;
    const b = dtypeBound(e.dtype);
    return {
      min: Number.isFinite(b.min) ? intImm(b.min, e.dtype) : NEG_INF,
      max: Number.isFinite(b.max) ? intImm(b.max, e.dtype) : POS_INF,
    };
  }

  private signOf(e: PrimExpr): Sign {
    const b = this.analyzer.constIntBound(e);
    return b.min >= 0 ? "nonneg" : b.max <= 0 ? "nonpos" : "unknown";
  }

  /**
   * The analyzer's simplification, as a property bound once: a closure made per call costs more
   * than the simplification of a small end point (and a named one costs more under tsx).
   */
  private readonly simp = (x: PrimExpr): PrimExpr => this.analyzer.simplify(x);

  /** Applies a monotone map to both ends (decreasing when `direction` is "nonpos"). */
  private mapEnds(s: IntervalSet, f: (x: PrimExpr) => PrimExpr, direction: Sign): IntervalSet {
    const lo = s.min.kind === "NegInf" ? undefined : this.simp(f(s.min));
    const hi = s.max.kind === "PosInf" ? undefined : this.simp(f(s.max));
    if (direction === "nonneg") return { min: lo ?? NEG_INF, max: hi ?? POS_INF };
    return { min: hi ?? NEG_INF, max: lo ?? POS_INF };
  }

  private binary(op: string, a: PrimExpr, b: PrimExpr): IntervalSet | undefined {
    const sa = this.eval(a);
    const sb = this.eval(b);
    const simp = this.simp;
    switch (op) {
      case "add":
        return {
          min: sa.min.kind === "NegInf" || sb.min.kind === "NegInf" ? NEG_INF : simp(add(sa.min, sb.min)),
          max: sa.max.kind === "PosInf" || sb.max.kind === "PosInf" ? POS_INF : simp(add(sa.max, sb.max)),
        };
      case "sub":
        return {
          min: sa.min.kind === "NegInf" || sb.max.kind === "PosInf" ? NEG_INF : simp(sub(sa.min, sb.max)),
          max: sa.max.kind === "PosInf" || sb.min.kind === "NegInf" ? POS_INF : simp(sub(sa.max, sb.min)),
        };
      case "mul":
        return this.multiply(sa, sb);
      case "floordiv":
        return this.floorDivide(sa, sb);
      case "floormod":
        return this.floorModulo(sa, sb);
      case "div":
      case "mod":
        // Truncation equals flooring for a non-negative dividend and a positive divisor.
        if (this.isNonNegative(sa) && this.isPositivePoint(sb)) {
          return op === "div" ? this.floorDivide(sa, sb) : this.floorModulo(sa, sb);
        }
        return undefined;
      case "min":
        return {
          min: sa.min.kind === "NegInf" || sb.min.kind === "NegInf" ? NEG_INF : simp(min(sa.min, sb.min)),
          max: sa.max.kind === "PosInf" ? sb.max : sb.max.kind === "PosInf" ? sa.max : simp(min(sa.max, sb.max)),
        };
      case "max":
        return {
          min: sa.min.kind === "NegInf" ? sb.min : sb.min.kind === "NegInf" ? sa.min : simp(max(sa.min, sb.min)),
          max: sa.max.kind === "PosInf" || sb.max.kind === "PosInf" ? POS_INF : simp(max(sa.max, sb.max)),
        };
      default:
        return undefined;
    }
  }

  private isPositivePoint(s: IntervalSet): boolean {
    const v = pointValue(s);
    return v !== undefined && this.analyzer.canProveGreater(v, 0);
  }

  private isNonNegative(s: IntervalSet): boolean {
    return s.min.kind !== "NegInf" && this.signOf(s.min) === "nonneg";
  }

  private multiply(sa: IntervalSet, sb: IntervalSet): IntervalSet | undefined {
    const kb = pointValue(sb);
    if (kb !== undefined) return this.scale(sa, kb);
    const ka = pointValue(sa);
    if (ka !== undefined) return this.scale(sb, ka);
    // Two ranges: only with constant ends, via the four corner products.
    const ends = [sa.min, sa.max, sb.min, sb.max];
    if (!ends.every((x) => x.kind === "IntImm")) return undefined;
    const [a0, a1, b0, b1] = ends.map((x) => (x as { value: number }).value) as [number, number, number, number];
    const corners = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
    const dt = (sa.min as PrimExpr).dtype;
    return { min: intImm(Math.min(...corners), dt), max: intImm(Math.max(...corners), dt) };
  }

  /** The set multiplied by a single value `k`, whose sign must be known. */
  private scale(s: IntervalSet, k: PrimExpr): IntervalSet | undefined {
    const sign = this.signOf(k);
    if (sign === "unknown") return undefined;
    if (k.kind === "IntImm" && k.value === 0) return pointInterval(k);
    return this.mapEnds(s, (x) => mul(x, k), sign);
  }

  private floorDivide(sa: IntervalSet, sb: IntervalSet): IntervalSet | undefined {
    const d = pointValue(sb);
    if (d === undefined) return undefined;
    // floor(x / d) is increasing in x for d > 0 and decreasing for d < 0.
    if (this.analyzer.canProveGreater(d, 0)) return this.mapEnds(sa, (x) => floordiv(x, d), "nonneg");
    if (this.analyzer.canProveLess(d, 0)) return this.mapEnds(sa, (x) => floordiv(x, d), "nonpos");
    return undefined;
  }

  private floorModulo(sa: IntervalSet, sb: IntervalSet): IntervalSet | undefined {
    const d = pointValue(sb);
    if (d === undefined || !this.analyzer.canProveGreater(d, 0)) return undefined;
    const simp = this.simp;
    if (isFiniteInterval(sa)) {
      if (pointValue(sa) !== undefined) return pointInterval(simp(floormod(sa.min, d)));
      // Both ends in one period: the remainder is the dividend shifted by a constant multiple of d.
      if (this.analyzer.canProveEqual(floordiv(sa.min, d), floordiv(sa.max, d))) {
        return { min: simp(floormod(sa.min, d)), max: simp(floormod(sa.max, d)) };
      }
    }
    const zero = intImm(0, d.dtype);
    if (this.isNonNegative(sa) && sa.max.kind !== "PosInf" && this.analyzer.canProveLess(sa.max, d)) return sa;
    return { min: zero, max: simp(sub(d, 1)) };
  }
}

/** The single value of a one-point set (ends built from the same expression), else undefined. */
function pointValue(s: IntervalSet): PrimExpr | undefined {
  return s.min.kind !== "NegInf" && s.min === s.max ? s.min : undefined;
}

function fitsIn(source: DType, target: DType): boolean {
  const s = dtypeBound(source);
  const t = dtypeBound(target);
  return t.min <= s.min && s.max <= t.max;
}

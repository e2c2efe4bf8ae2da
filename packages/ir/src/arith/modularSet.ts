/**
 * Modular sets (TVM's `ModularSet`): `{coeff·k + base | k ∈ ℤ}`, what an integer expression is
 * known to be congruent to. coeff = 0 means the single value `base`; (1, 0) means nothing is known.
 * The rules are TVM's: sums and products combine by gcd, divisions and remainders by a constant
 * keep what the constant divides, shifts and low-bit masks act as multiplications and remainders.
 */
import { dtypeInfo } from "../dtype.js";
import type { PrimExpr, Var } from "../expr.js";
import { gcdInt } from "./gcd.js";

export interface ModularSet {
  readonly coeff: number;
  readonly base: number;
}

/** What the modular analysis may know: expressions variables are bound to, congruences, signs. */
export interface ModularFacts {
  substitutionOf(v: Var): PrimExpr | undefined;
  congruenceOf?(v: Var): ModularSet | undefined;
  /** Is `e` ≥ 0 everywhere? (Truncating division keeps residues only then.) */
  isNonNegative(e: PrimExpr): boolean;
}

export const EVERYTHING: ModularSet = Object.freeze({ coeff: 1, base: 0 });

/** A set normalised as TVM's: coeff ≥ 0 and, when coeff > 0, 0 ≤ base < coeff. */
export function modularSet(coeff: number, base: number): ModularSet {
  if (!Number.isSafeInteger(coeff) || !Number.isSafeInteger(base)) return EVERYTHING;
  let [c, b] = coeff < 0 ? [-coeff, -base] : [coeff, base];
  if (c !== 0) b = ((b % c) + c) % c;
  return { coeff: c + 0, base: b + 0 };
}

export function unionModular(a: ModularSet, b: ModularSet): ModularSet {
  const coeff = gcdInt(a.coeff, b.coeff);
  if (coeff === 0) return a.base === b.base ? a : EVERYTHING;
  const [b0, b1] = [a.base % coeff, b.base % coeff];
  if (b0 === b1) return modularSet(coeff, b0);
  return modularSet(gcdInt(gcdInt(b0, b1), coeff), b0);
}

/** The intersection (Chinese remainder theorem); undefined when empty. */
export function intersectModular(a: ModularSet, b: ModularSet): ModularSet | undefined {
  if (a.coeff === 0 || b.coeff === 0) {
    const [point, other] = a.coeff === 0 ? [a, b] : [b, a];
    if (other.coeff === 0) return point.base === other.base ? point : undefined;
    return (point.base - other.base) % other.coeff === 0 ? point : undefined;
  }
  const [g, x] = extendedGcd(a.coeff, b.coeff);
  const v = b.base - a.base;
  if (v % g !== 0) return undefined;
  return modularSet((a.coeff / g) * b.coeff, (v / g) * x * a.coeff + a.base);
}

/** [gcd(a, b), x] with a·x ≡ gcd (mod b). */
function extendedGcd(a: number, b: number): [number, number] {
  let [r0, r1, s0, s1] = [a, b, 1, 0];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return [r0, s0];
}

/** What survives reduction modulo 2^bits: the congruence modulo gcd(coeff, 2^bits). */
function wrapped(s: ModularSet, bits: number): ModularSet {
  if (bits > 32) return s.coeff === 0 ? EVERYTHING : modularSet(largestPowerOfTwoDividing(s.coeff, 2 ** 52), s.base);
  return modularSet(gcdInt(s.coeff, 2 ** bits), s.base);
}

function largestPowerOfTwoDividing(n: number, cap: number): number {
  let p = 1;
  while (p < cap && n % (p * 2) === 0) p *= 2;
  return p;
}

export function modularSetOf(e: PrimExpr, facts: ModularFacts): ModularSet {
  return new ModularEvaluator(facts).of(e);
}

class ModularEvaluator {
  private readonly lets = new Map<Var, ModularSet>();
  constructor(private readonly facts: ModularFacts) {}

  of(e: PrimExpr): ModularSet {
    const s = this.unwrapped(e);
    const info = dtypeInfo(e.dtype);
    // Unsigned results wrap modulo 2^bits, which keeps only congruences modulo powers of two.
    return info.code === "uint" ? wrapped(s, info.bits) : s;
  }

  private unwrapped(e: PrimExpr): ModularSet {
    switch (e.kind) {
      case "IntImm":
        return modularSet(0, e.value);
      case "Var": {
        const known = this.lets.get(e) ?? this.facts.congruenceOf?.(e);
        if (known !== undefined) return known;
        const s = this.facts.substitutionOf(e);
        return s === undefined ? EVERYTHING : this.of(s);
      }
      case "Cast": {
        const inner = this.of(e.value);
        const [from, to] = [dtypeInfo(e.value.dtype), dtypeInfo(e.dtype)];
        // Through floats an integer keeps its value (a float's set is only known when it came from one).
        if (from.code === "float" || to.code === "float") return inner;
        // A narrowing or sign-changing cast wraps modulo 2^bits.
        return to.bits < from.bits || (to.bits === from.bits && to.code !== from.code) ? wrapped(inner, to.bits) : inner;
      }
      case "Let": {
        this.lets.set(e.variable, this.of(e.value));
        const r = this.of(e.body);
        this.lets.delete(e.variable);
        return r;
      }
      case "Select":
        return unionModular(this.of(e.trueValue), this.of(e.falseValue));
      case "Broadcast":
        return this.of(e.value);
      case "Binary":
        return this.binary(e.op, e.a, e.b);
      case "Call":
        return this.call(e.op, e.args);
      default:
        return EVERYTHING;
    }
  }

  private binary(op: string, ae: PrimExpr, be: PrimExpr): ModularSet {
    switch (op) {
      case "add":
      case "sub": {
        const [a, b] = [this.of(ae), this.of(be)];
        return modularSet(gcdInt(a.coeff, b.coeff), op === "add" ? a.base + b.base : a.base - b.base);
      }
      case "mul": {
        const [a, b] = [this.of(ae), this.of(be)];
        return modularSet(gcdInt(a.coeff * b.coeff, gcdInt(a.coeff * b.base, a.base * b.coeff)), a.base * b.base);
      }
      case "div":
      case "floordiv": {
        const b = this.of(be);
        return b.coeff === 0 && b.base !== 0 ? this.divByConst(ae, b.base, op === "floordiv") : EVERYTHING;
      }
      case "mod":
      case "floormod": {
        const b = this.of(be);
        return b.coeff === 0 && b.base !== 0 ? this.modByConst(ae, b.base, op === "floormod") : EVERYTHING;
      }
      case "min":
      case "max":
        return unionModular(this.of(ae), this.of(be));
      default:
        return EVERYTHING;
    }
  }

  private divByConst(lhs: PrimExpr, c: number, floor: boolean): ModularSet {
    const a = this.of(lhs);
    if (a.coeff % c !== 0) return EVERYTHING;
    if (a.base === 0) return modularSet(Math.abs(a.coeff / c), 0);
    if (a.base > 0 && c > 0 && (floor || this.facts.isNonNegative(lhs))) return modularSet(a.coeff / c, Math.trunc(a.base / c));
    return EVERYTHING;
  }

  private modByConst(lhs: PrimExpr, c: number, floor: boolean): ModularSet {
    const a = this.of(lhs);
    const coeff = gcdInt(a.coeff, c);
    if (a.base % coeff === 0 || (a.base > 0 && (floor || this.facts.isNonNegative(lhs)))) return modularSet(coeff, a.base % coeff);
    return EVERYTHING;
  }

  private call(op: string, args: readonly PrimExpr[]): ModularSet {
    if (args.length !== 2) return EVERYTHING;
    const b = this.of(args[1]!);
    if (b.coeff !== 0 || b.base < 0 || b.base > 52) return EVERYTHING;
    switch (op) {
      case "shift_left": {
        const a = this.of(args[0]!);
        return modularSet(a.coeff * 2 ** b.base, a.base * 2 ** b.base);
      }
      case "shift_right":
        return this.divByConst(args[0]!, 2 ** b.base, true);
      case "bitwise_and": {
        // A mask of low bits (2^k - 1) is a remainder by 2^k.
        const m = b.base + 1;
        return m > 0 && Number.isInteger(Math.log2(m)) ? this.modByConst(args[0]!, m, true) : EVERYTHING;
      }
      default:
        return EVERYTHING;
    }
  }
}

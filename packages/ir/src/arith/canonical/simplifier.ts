/**
 * TVM's CanonicalSimplifier (`Analyzer.canonicalSimplify`): the rewrite simplifier, except that
 * index-typed +, -, *, truncating and flooring / and %, casts and comparisons are worked out in
 * canonical forms (sums of split terms, see forms.ts). Children stay forms while their parent can
 * merge them (`x / 6 * 6 + x % 6 / 3 * 3 + x % 3` becomes `x`); every other node sees them as
 * expressions, written back in TVM's order (normalize.ts).
 */
import { type BinaryOp, type PrimExpr, binary, intImm } from "../../expr.js";
import { floorDivInt, floorModInt, truncDivInt, truncModInt } from "../constFold.js";
import { gcdInt } from "../gcd.js";
import { foldingBinary } from "../tvm-rewrite/folding.js";
import { rejectZeroDivisor } from "../tvm-rewrite/zero-divisor.js";
import { type RewriteFacts, TvmRewriter, isIndexType, isUintIndexType } from "../tvm-rewrite/rewriter.js";
import { uintAsIndexAllowed } from "../uint-as-index.js";
import { canPushCastIntoSplit, canPushCastIntoSum, pushCastIntoSplit, pushCastIntoSum } from "./cast.js";
import {
  type Canonical,
  CanonicalOverflow,
  type DivMode,
  type SplitTerm,
  type SumForm,
  addConstant,
  addSum,
  addTerm,
  checked,
  divideSum,
  isForm,
  isZeroSum,
  modeCompatible,
  scaleSum,
  separateDivisible,
  splitOf,
  sumOf,
  withSplit,
} from "./forms.js";
import { modOp, normalize, sumToExpr } from "./normalize.js";
import { cancelCommonFactors, mulAndNormalize } from "./products.js";

type Binary = PrimExpr & { kind: "Binary" };

/** How deep comparisons rewritten by the comparison rules may re-enter them. */
const MAX_COMPARISON_DEPTH = 8;

function modeOf(op: BinaryOp): DivMode {
  return op === "div" || op === "mod" ? "trunc" : "floor";
}

export class CanonicalSimplifier extends TvmRewriter {
  private comparisonDepth = 0;

  constructor(facts: RewriteFacts) {
    super(facts);
  }

  override visit(e: PrimExpr): PrimExpr {
    try {
      return normalize(this.mutate(e));
    } catch (err) {
      // A scale past 2^53 or a constant outside its dtype: leave this node to the rewrite rules.
      if (err instanceof CanonicalOverflow) return super.visit(e);
      throw err;
    }
  }

  /** TVM's CanonicalMutate: the node's canonical form, not yet written back as an expression. */
  private mutate(e: PrimExpr): Canonical {
    if (e.kind === "Binary") {
      if (e.op === "lt") return this.lessThan(e);
      if (e.op === "gt") return this.lessThan(binary("lt", e.b, e.a));
      if (isIndexType(e.dtype)) {
        switch (e.op) {
          case "add":
          case "sub":
            return this.addSub(e);
          case "mul":
            return this.mul(e);
          case "div":
          case "floordiv":
            return this.divide(e);
          case "mod":
          case "floormod":
            return this.remainder(e);
        }
      }
    }
    if (e.kind === "Cast" && (isIndexType(e.dtype) || (isUintIndexType(e.dtype) && uintAsIndexAllowed()))) return this.castNode(e);
    return super.visit(e);
  }

  private toSplit(c: Canonical): SplitTerm {
    if (c.kind === "Split") return c;
    if (c.kind === "Sum" && c.base === 0 && c.terms.length === 1) return c.terms[0]!;
    return splitOf(normalize(c));
  }

  private toSum(c: Canonical): SumForm {
    if (c.kind === "Sum") return c;
    if (c.kind === "IntImm") return sumOf(c.dtype, [], c.value);
    const t = this.toSplit(c);
    return sumOf(t.dtype, [t], 0);
  }

  private convertMode(t: SplitTerm, mode: DivMode): SplitTerm {
    if (t.mode === mode) return t;
    if (modeCompatible(t, mode)) return withSplit(t, { mode });
    return withSplit(splitOf(normalize(t)), { mode });
  }

  private nonNegative(e: PrimExpr): boolean {
    return e.kind === "IntImm" ? e.value >= 0 : this.facts.bound(e).min >= 0;
  }

  /** TVM's TryCompare(x, val) reduced to what the canonical rules ask: is x < val? */
  private provablyBelow(x: PrimExpr, val: number): boolean {
    const v = this.visit(x);
    if (v.kind === "IntImm") return v.value < val;
    return this.facts.bound(v).max < val;
  }

  /** TVM's TryConstFold: two constants fold; `x + 0`, `x * 1`, `x / 1`, `0 % x`, … reduce. */
  private constFold(op: BinaryOp, a: Canonical, b: Canonical): Canonical | undefined {
    if (!isForm(a) && !isForm(b)) {
      const r = foldingBinary(op, a, b);
      return r.kind === "Binary" && r.op === op ? undefined : r;
    }
    const isConst = (c: Canonical, v: number): boolean => c.kind === "IntImm" && c.value === v;
    switch (op) {
      case "add":
        return isConst(a, 0) ? b : isConst(b, 0) ? a : undefined;
      case "sub":
        return isConst(b, 0) ? a : undefined;
      case "mul":
        return isConst(a, 1) ? b : isConst(b, 1) ? a : isConst(a, 0) ? a : isConst(b, 0) ? b : undefined;
      case "div":
      case "floordiv":
        return isConst(a, 0) || isConst(b, 1) ? a : undefined;
      case "mod":
      case "floormod":
        return isConst(a, 0) ? a : isConst(b, 1) ? intImm(0, a.dtype) : undefined;
      default:
        return undefined;
    }
  }

  private addSub(e: Binary): Canonical {
    const a = this.mutate(e.a);
    const b = this.mutate(e.b);
    const folded = this.constFold(e.op, a, b);
    if (folded !== undefined) return folded;
    const sign = e.op === "add" ? 1 : -1;
    const sum = this.toSum(a);
    if (b.kind === "IntImm") return addConstant(sum, checked(sign * b.value));
    if (b.kind === "Sum") return addSum(sum, b, sign);
    return addTerm(sum, this.toSplit(b), sign);
  }

  private mul(e: Binary): Canonical {
    let a = this.mutate(e.a);
    let b = this.mutate(e.b);
    const folded = this.constFold("mul", a, b);
    if (folded !== undefined) return folded;
    if (a.kind === "IntImm") [a, b] = [b, a];
    if (b.kind === "IntImm") {
      if (a.kind === "Sum") return scaleSum(a, b.value);
      const t = this.toSplit(a);
      return withSplit(t, { scale: checked(t.scale * b.value) });
    }
    const ret = mulAndNormalize(normalize(a), normalize(b));
    return ret.kind === "Binary" && ret.op === "mul" && ret.a === e.a && ret.b === e.b ? e : ret;
  }

  /** `lhs / c` for c > 0 (TVM's SplitDivConst). */
  private splitDivConst(input: SplitTerm, c: number, mode: DivMode): SplitTerm {
    const lhs = this.convertMode(input, mode);
    if (lhs.scale % c === 0) return withSplit(lhs, { scale: lhs.scale / c });
    // `(x // a) % s` is `x % (a * s) // a` for s > 0 only when flooring (TVM applies it to s < 0 too).
    if (c % lhs.scale === 0 && (lhs.scale > 0 || lhs.lower === 1 || mode === "trunc")) {
      const scaled = c / lhs.scale;
      const lower = checked(lhs.lower * scaled);
      if (lhs.upper === Infinity || lhs.upper % lower === 0) return withSplit(lhs, { scale: 1, lower });
      if (lhs.upper <= lower) return splitOf(intImm(0, lhs.dtype));
      const index = foldingBinary(modOp(mode), lhs.index, intImm(lhs.upper, lhs.dtype));
      return withSplit(lhs, { index, upper: Infinity, scale: 1, lower });
    }
    return withSplit(splitOf(normalize(lhs)), { lower: c, mode });
  }

  /** `lhs % c` for c > 0 (TVM's SplitModConst). */
  private splitModConst(input: SplitTerm, c: number, mode: DivMode): SplitTerm {
    const lhs = this.convertMode(input, mode);
    if (lhs.scale % c === 0) return withSplit(lhs, { scale: 0 });
    // `(x // a) % s` is `x % (a * s) // a` for s > 0 only when flooring (TVM applies it to s < 0 too).
    if (c % lhs.scale === 0 && (lhs.scale > 0 || lhs.lower === 1 || mode === "trunc")) {
      const scaled = c / lhs.scale;
      const newUpper = checked(lhs.lower * scaled);
      if (lhs.upper === Infinity || lhs.upper % newUpper === 0) {
        if (newUpper < lhs.upper && lhs.upper !== Infinity) {
          // A smaller modulus: the index may simplify further under it.
          const updated = this.toSplit(this.visit(foldingBinary(modOp(mode), lhs.index, intImm(newUpper, lhs.dtype))));
          const divided = lhs.lower !== 1 ? this.splitDivConst(updated, lhs.lower, mode) : updated;
          return withSplit(divided, { scale: checked(divided.scale * lhs.scale) });
        }
        return withSplit(lhs, { upper: newUpper });
      }
      if (newUpper % lhs.upper === 0) return lhs;
    }
    return withSplit(splitOf(normalize(lhs)), { upper: c, mode });
  }

  /** floordiv(sum, c): the divisible part divided, the rest divided unless it is provably in [0, c). */
  private floorDivideSum(sum: SumForm, c: number): SumForm {
    const { divisible, rest } = separateDivisible(sum, c);
    let lhs = divideSum(divisible, c);
    if (isZeroSum(rest)) return lhs;
    const temp = sumToExpr(rest);
    if (temp.kind === "IntImm") return addConstant(lhs, floorDivInt(temp.value, c));
    if (!(this.provablyBelow(temp, c) && this.nonNegative(temp))) lhs = addTerm(lhs, this.splitDivConst(splitOf(temp), c, "floor"), 1);
    return lhs;
  }

  /** A division or remainder by a symbolic divisor: factors common to both sides cancelled. */
  private bySymbolicDivisor(e: Binary, a: Canonical, b: Canonical): Canonical {
    const [na, nb] = [normalize(a), normalize(b)];
    const cancelled = cancelCommonFactors(na, nb);
    if (cancelled !== undefined) {
      const q = foldingBinary(e.op, cancelled.lhs, cancelled.rhs);
      return e.op === "mod" || e.op === "floormod" ? foldingBinary("mul", q, cancelled.common) : q;
    }
    return na === e.a && nb === e.b ? e : binary(e.op, na, nb);
  }

  /** A divisor whose canonical form is zero (a sum's terms may have cancelled to scale 0). */
  private rejectZeroDivisor(op: BinaryOp, a: Canonical, b: Canonical): void {
    if (b.kind !== "IntImm" && b.kind !== "Sum") return;
    const divisor = normalize(b);
    if (divisor.kind === "IntImm" && divisor.value === 0) rejectZeroDivisor(op, normalize(a), divisor);
  }

  private divide(e: Binary): Canonical {
    const mode = modeOf(e.op);
    const a = this.mutate(e.a);
    const b = this.mutate(e.b);
    this.rejectZeroDivisor(e.op, a, b);
    const folded = this.constFold(e.op, a, b);
    if (folded !== undefined) return folded;
    if (b.kind === "IntImm" && b.value > 0) {
      const c = b.value;
      if (a.kind === "Sum") {
        if (mode === "floor") return this.floorDivideSum(a, c);
        const { divisible, rest } = separateDivisible(a, c);
        if (isZeroSum(rest)) return divideSum(divisible, c);
        if (this.nonNegative(sumToExpr(divisible)) && this.nonNegative(sumToExpr(rest))) {
          const lhs = divideSum(divisible, c);
          const temp = sumToExpr(rest);
          if (temp.kind === "IntImm") return addConstant(lhs, truncDivInt(temp.value, c));
          return this.provablyBelow(temp, c) ? lhs : addTerm(lhs, this.splitDivConst(splitOf(temp), c, "trunc"), 1);
        }
      } else {
        const bound = this.facts.bound(normalize(a));
        if (bound.min >= 0 && bound.max < c) return intImm(0, e.dtype);
        if (mode === "floor") {
          const viaMod = this.floorDivOfFloorMod(a, c);
          if (viaMod !== undefined) return viaMod;
        }
      }
      return this.splitDivConst(this.toSplit(a), c, mode);
    }
    return this.bySymbolicDivisor(e, a, b);
  }

  /**
   * floordiv(floormod(index, m * c), c) = floormod(floordiv(index, c), m), taken when the index
   * is a sum with parts divisible by c, which the division can then take apart.
   */
  private floorDivOfFloorMod(a: Canonical, c: number): PrimExpr | undefined {
    if (a.kind !== "Split" || a.lower !== 1 || a.scale !== 1 || a.upper === Infinity || a.upper % c !== 0 || !modeCompatible(a, "floor")) return undefined;
    const index = this.mutate(a.index);
    if (index.kind !== "Sum") return undefined;
    if (isZeroSum(separateDivisible(index, c).divisible)) return undefined;
    const quotient = sumToExpr(this.floorDivideSum(index, c));
    return this.visit(foldingBinary("floormod", quotient, intImm(a.upper / c, a.dtype)));
  }

  private remainder(e: Binary): Canonical {
    const a = this.mutate(e.a);
    const b = this.mutate(e.b);
    this.rejectZeroDivisor(e.op, a, b);
    const folded = this.constFold(e.op, a, b);
    if (folded !== undefined) return folded;
    return b.kind === "IntImm" && b.value > 0 ? this.remainderByConstant(a, b.value, modeOf(e.op)) : this.bySymbolicDivisor(e, a, b);
  }

  private remainderByConstant(dividend: Canonical, c: number, mode: DivMode): Canonical {
    let a = dividend;
    if (a.kind === "Sum") {
      const r = mode === "trunc" ? this.truncModSum(a, c) : this.floorModSum(a, c);
      if (r.kind !== "Sum") return r;
      a = r;
    } else {
      const bound = this.facts.bound(normalize(a));
      if (bound.min >= 0 && bound.max < c) return a;
    }
    return this.splitModConst(this.toSplit(a), c, mode);
  }

  /** truncmod(sum, c): a final expression, or the sum left for SplitModConst. */
  private truncModSum(sum: SumForm, c: number): Canonical {
    const { divisible, rest } = separateDivisible(sum, c);
    if (isZeroSum(rest)) return intImm(0, sum.dtype);
    let psum = sum;
    if (this.nonNegative(sumToExpr(divisible)) && this.nonNegative(sumToExpr(rest))) {
      const temp = sumToExpr(rest);
      if (temp.kind === "IntImm") return intImm(truncModInt(temp.value, c), sum.dtype);
      if (this.provablyBelow(temp, c)) return temp;
      psum = rest;
    }
    // (x - 5) % 3 is (x - 2) % 3 while the dividend stays non-negative.
    const bound = this.facts.bound(sumToExpr(psum));
    const newBase = psum.base % c;
    if (bound.min >= 0 && bound.min - psum.base + newBase >= 0) return this.splitModConst(this.toSplit(sumOf(psum.dtype, psum.terms, newBase)), c, "trunc");
    return psum;
  }

  /** floormod(sum, c): the divisible part dropped, the base reduced modulo c. */
  private floorModSum(sum: SumForm, c: number): Canonical {
    const { rest } = separateDivisible(sum, c);
    const temp = sumToExpr(rest);
    if (temp.kind === "IntImm") return intImm(floorModInt(temp.value, c), sum.dtype);
    if (this.provablyBelow(temp, c) && this.nonNegative(temp)) return temp;
    const reduced = sumOf(rest.dtype, rest.terms, floorModInt(rest.base, c));
    return this.splitModConst(this.toSplit(reduced), c, "floor");
  }

  private castNode(e: PrimExpr & { kind: "Cast" }): Canonical {
    const value = this.mutate(e.value);
    const bound = (x: PrimExpr) => this.facts.bound(x);
    if (value.kind === "Sum" && canPushCastIntoSum(value, e.dtype, bound)) return pushCastIntoSum(value, e.dtype);
    if (value.kind === "Split" && canPushCastIntoSplit(value, e.dtype, bound)) return pushCastIntoSplit(value, e.dtype);
    return super.visit(e);
  }

  /**
   * `a < b` as `a - b < 0`; with d the gcd of the base and the scales other than ±1, the terms
   * whose scale d divides are divided by d when the rest is provably in [0, d) (`x * 8 + y < 16`
   * with y in [0, 8) is `x < 2`), or when the rest is one flooring split `(y % m) // L` with
   * scale 1 and d * L dividing m, which becomes `(y // (d * L)) % (m / (d * L))`.
   */
  private lessThan(node: Binary): Canonical {
    if (this.comparisonDepth >= MAX_COMPARISON_DEPTH) return super.visit(node);
    const diff = this.mutate(foldingBinary("sub", node.a, node.b));
    if (diff.kind !== "Sum") return super.visit(node);
    let gcd = diff.base;
    let nonUnitScale = false;
    for (const t of diff.terms) {
      if (t.scale > 1 || t.scale < -1) {
        nonUnitScale = true;
        gcd = gcdInt(gcd, t.scale);
      }
    }
    if (!nonUnitScale || gcd <= 1) return super.visit(node);
    const { divisible, rest } = separateDivisible(diff, gcd);
    const zero = intImm(0, diff.dtype);
    const extra = sumToExpr(rest);
    if (this.facts.canProve(binary("lt", extra, intImm(gcd, diff.dtype))) && this.facts.canProve(binary("ge", extra, zero))) {
      return this.nested(foldingBinary("lt", sumToExpr(divideSum(divisible, gcd)), zero));
    }
    const only = rest.terms.length === 1 && rest.base === 0 ? rest.terms[0]! : undefined;
    // TVM takes this step for truncating splits too; for a negative index it is wrong there.
    if (
      only !== undefined &&
      only.scale === 1 &&
      only.mode === "floor" &&
      only.lower > 0 &&
      only.upper !== Infinity &&
      only.upper > 0 &&
      only.upper % (gcd * only.lower) === 0
    ) {
      const lower = gcd * only.lower;
      const digit = foldingBinary("floormod", foldingBinary("floordiv", only.index, intImm(lower, diff.dtype)), intImm(only.upper / lower, diff.dtype));
      return this.nested(foldingBinary("lt", foldingBinary("add", sumToExpr(divideSum(divisible, gcd)), digit), zero));
    }
    return super.visit(node);
  }

  private nested(e: PrimExpr): Canonical {
    this.comparisonDepth++;
    try {
      return this.mutate(e);
    } finally {
      this.comparisonDepth--;
    }
  }
}

/**
 * The expression simplifier. It rewrites bottom-up; each node's children are simplified first and
 * then one rule set applies:
 *
 * - constants of every op and dtype fold (see constFold.ts);
 * - integer `+ - *` become a canonical linear form (like terms collected, `x*2 + 3 + x` → `x*3 + 3`),
 *   where `floordiv(x, c)*c + floormod(x, c)` recombines to `x`;
 * - `floordiv/floormod(L, c)`: terms of L whose coefficient is a multiple of c leave the division
 *   (`floordiv(c*q + r, c) = q + floordiv(r, c)`, `floormod(c*q + r, c) = floormod(r, c)`), and when
 *   the bounds of the rest r lie in one period [k·c, (k+1)·c) the division becomes `k` and the
 *   remainder `r - k·c`; nested `floordiv(floordiv(x, a), b)` → `floordiv(x, a*b)` and
 *   `floormod(floormod(x, m), a)` → `floormod(x, a)` when a divides m (a, b, m > 0);
 * - truncating `div/mod` become floor forms when the dividend's sign is known;
 * - a coefficient's multiple of c leaves the division too when the rest then lies in one period
 *   (`floordiv(c_o*360, 16)` → `c_o*22` for c_o < 2);
 * - `min/max` and comparisons of integers are decided from the bounds of `a - b` (a variable of a
 *   symbolic range `[0, n)` also against its range's ends: `v < n` holds); undecided, min and max
 *   keep their operand order and orderings take TVM's shape (`i - 16 >= 0` → `16 <= i`);
 * - `floordiv(x, c) op k` compares x with a constant instead, and `x < c1 && floormod(x, c2) < c3`
 *   lowers c1 past the remainders the second test rejects (TVM's rules);
 * - `&& || !` and Select / if_then_else with constant conditions reduce;
 * - casts of constants fold when exact.
 * Every rule is an identity on mathematical integers given the variable bounds in the context.
 */
import { dtypeInfo, intRange, isFloat } from "../dtype.js";
import { type Binary, type BinaryOp, type PrimExpr, type Var, binary, boolImm, bufferLoad, call, cast, intImm, ramp, broadcast, select } from "../expr.js";
import { floorDivInt, floorModInt, foldBinaryConstants, foldCastConstant, gcdInt } from "./constFold.js";
import { exprKey, sameExpr } from "./exprKey.js";
import { simplifyLet } from "./letInline.js";
import { type IntBound, type VarBoundFacts, dtypeBound, isIntegerDType } from "./intBound.js";
import {
  type LinearForm,
  type LinearTerm,
  addForms,
  constantForm,
  isConstantForm,
  linearFormBound,
  linearFormOf,
  formOfRebuilt,
  linearFormToExpr,
  scaleForm,
  subtractForms,
} from "./linearForm.js";

/** What the simplifier may know: variable bounds and variables bound to expressions. */
export interface SimplifyFacts extends VarBoundFacts {
  substitutionOf(v: Var): PrimExpr | undefined;
  /** The inclusive ends of a variable's range when they are not constants (`[0, n - 1]`). */
  symbolicRangeOf?(v: Var): SymbolicRange | undefined;
  /** True or false for a condition the enclosing constraint scopes assume or rule out. */
  knownCondition?(cond: PrimExpr): boolean | undefined;
}

export interface SymbolicRange {
  readonly min: PrimExpr;
  readonly max: PrimExpr;
}

/**
 * What simplification works out, by node identity, kept between calls under unchanged facts (an
 * Analyzer owns one): unrolled and substituted code shares subtrees, which are then simplified,
 * decomposed and bounded once. Simplified forms and bounds depend on the facts and are dropped
 * when they change; linear forms do not.
 */
/** How many built expressions keep their forms at hand. */
const RECENTLY_BUILT = 8;

export class RewriteMemo {
  simplified = new Map<PrimExpr, PrimExpr>();
  bounds = new Map<PrimExpr, IntBound>();
  readonly forms = new Map<PrimExpr, LinearForm>();
  /** Counts the changes of facts: results worked out under one generation hold for it. */
  generation = 0;

  /**
   * The forms of the expressions the simplifier built last (a ring): the enclosing sum or
   * product, which asks for them next, need not decompose them again. A slot keeps the form the
   * expression was built from and works out the expression's own form (`formOfRebuilt`) only when
   * asked: most built expressions are final results, never asked about.
   */
  private readonly builtExprs: (PrimExpr | undefined)[] = new Array(RECENTLY_BUILT).fill(undefined);
  private readonly builtSources: (LinearForm | undefined)[] = new Array(RECENTLY_BUILT).fill(undefined);
  private readonly builtForms: (LinearForm | undefined)[] = new Array(RECENTLY_BUILT).fill(undefined);
  private builtNext = 0;

  /** Notes that `e` was built from `source` (`linearFormToExpr(source)`). */
  noteBuilt(e: PrimExpr, source: LinearForm): void {
    this.builtExprs[this.builtNext] = e;
    this.builtSources[this.builtNext] = source;
    this.builtForms[this.builtNext] = undefined;
    this.builtNext = (this.builtNext + 1) % RECENTLY_BUILT;
  }

  recentForm(e: PrimExpr): LinearForm | undefined {
    // Newest first: the operand asked about is most often the expression built last.
    for (let k = 1; k <= RECENTLY_BUILT; k++) {
      const i = (this.builtNext - k + RECENTLY_BUILT) % RECENTLY_BUILT;
      if (this.builtExprs[i] !== e) continue;
      let form = this.builtForms[i];
      if (form === undefined) {
        // Undefined where the expression's form is not the rebuilt one (it then decomposes).
        form = formOfRebuilt(this.builtSources[i]!);
        if (form === undefined) return undefined;
        this.builtForms[i] = form;
      }
      return form;
    }
    return undefined;
  }

  factsChanged(): void {
    this.generation++;
    if (this.simplified.size > 0) this.simplified = new Map();
    if (this.bounds.size > 0) this.bounds = new Map();
  }
}

/** Simplifies `e` under `facts`; `memo` may carry results from earlier calls under the same facts. */
export function rewriteSimplify(e: PrimExpr, facts: SimplifyFacts, memo: RewriteMemo = new RewriteMemo()): PrimExpr {
  return new Rewriter(facts, memo).simplifyRoot(e);
}

const NEGATED_COMPARE: Partial<Record<BinaryOp, BinaryOp>> = {
  eq: "ne",
  ne: "eq",
  lt: "ge",
  ge: "lt",
  gt: "le",
  le: "gt",
};

/** `a op b ⟺ b op' a`. */
const MIRRORED_COMPARE: Partial<Record<BinaryOp, BinaryOp>> = { lt: "gt", gt: "lt", le: "ge", ge: "le" };

function isQuotientByPositive(e: PrimExpr): boolean {
  return e.kind === "Binary" && e.op === "floordiv" && e.b.kind === "IntImm" && e.b.value > 0;
}

function isScalarInt(e: PrimExpr): boolean {
  return isIntegerDType(e.dtype) && dtypeInfo(e.dtype).lanes === 1;
}

function isUnsigned(dt: string): boolean {
  return dtypeInfo(dt).code === "uint";
}

/** Does `c` divide 2^bits of `dt`? Then wrapping modulo 2^bits keeps residues modulo c. */
function dividesWordSize(c: number, dt: string): boolean {
  return c > 0 && c <= 2 ** dtypeInfo(dt).bits && (c & (c - 1)) === 0;
}

class Rewriter {
  constructor(
    private readonly facts: SimplifyFacts,
    private readonly memo: RewriteMemo,
  ) {}

  private formOf(e: PrimExpr): LinearForm {
    return this.memo.recentForm(e) ?? linearFormOf(e, this.memo.forms);
  }

  /** The expression of a form, its own form noted among the recently built ones. */
  private toExpr(f: LinearForm): PrimExpr {
    const e = linearFormToExpr(f);
    if (e.kind !== "IntImm") this.memo.noteBuilt(e, f);
    return e;
  }

  /** The expression a caller asked about: remembered whatever it is. */
  simplifyRoot(e: PrimExpr): PrimExpr {
    if (e.kind === "IntImm" || e.kind === "FloatImm" || e.kind === "StringImm" || e.kind === "Var") return this.simplify(e);
    return this.remembered(e);
  }

  simplify(e: PrimExpr): PrimExpr {
    if (e.kind === "IntImm" || e.kind === "FloatImm" || e.kind === "StringImm") return e;
    if (e.kind === "Var") return this.facts.substitutionOf(e) ?? e;
    // Inner nodes of integer sums and products are rebuilt for every copy of an index, so they
    // are rarely met twice: remembering them would cost more than it saves.
    if (isIntegerSumNode(e)) return this.rewrite(e);
    return this.remembered(e);
  }

  private remembered(e: PrimExpr): PrimExpr {
    const simplified = this.memo.simplified;
    let result = simplified.get(e);
    if (result === undefined) {
      result = this.rewrite(e);
      simplified.set(e, result);
    }
    return result;
  }

  private rewrite(e: PrimExpr): PrimExpr {
    switch (e.kind) {
      case "IntImm":
      case "FloatImm":
      case "StringImm":
        return e;
      case "Var":
        return this.facts.substitutionOf(e) ?? e;
      case "Binary": {
        if (isIntegerSumNode(e)) return this.built(this.sum(e));
        const r = this.binary(e.op, this.simplify(e.a), this.simplify(e.b));
        if (r.dtype === "bool" && r.kind !== "IntImm" && this.facts.knownCondition !== undefined) {
          const known = this.facts.knownCondition(r);
          if (known !== undefined) return boolImm(known);
        }
        // Nothing rewritten: keep the input node (unchanged code stays shared, compares in O(1)).
        return r.kind === "Binary" && r.op === e.op && r.a === e.a && r.b === e.b && r.dtype === e.dtype ? e : r;
      }
      case "Not":
        return this.not(this.simplify(e.a));
      case "Select": {
        const c = this.simplify(e.condition);
        if (c.kind === "IntImm") return this.simplify(c.value !== 0 ? e.trueValue : e.falseValue);
        const t = this.simplify(e.trueValue);
        const f = this.simplify(e.falseValue);
        return sameExpr(t, f) ? t : select(c, t, f);
      }
      case "Cast": {
        const v = this.simplify(e.value);
        return foldCastConstant(e.dtype, v) ?? (v === e.value ? e : cast(e.dtype, v));
      }
      case "BufferLoad": {
        const indices = e.indices.map((i) => this.simplify(i));
        if (indices.every((x, i) => x === e.indices[i])) return e;
        const load = bufferLoad(e.buffer, indices);
        return e.predicate === undefined ? load : { ...load, predicate: e.predicate };
      }
      case "Ramp": {
        const r = ramp(this.simplify(e.base), this.simplify(e.stride), e.lanes);
        return r.base === e.base && r.stride === e.stride && r.dtype === e.dtype ? e : r;
      }
      case "Broadcast": {
        const r = broadcast(this.simplify(e.value), e.lanes);
        return r.value === e.value && r.dtype === e.dtype ? e : r;
      }
      case "Let":
        return simplifyLet(e, (x) => this.simplify(x));
      case "Call": {
        const args = e.args.map((a) => this.simplify(a));
        if (e.op === "if_then_else" && args.length === 3) {
          const c = args[0]!;
          if (c.kind === "IntImm") return c.value !== 0 ? args[1]! : args[2]!;
          if (sameExpr(args[1]!, args[2]!)) return args[1]!;
        }
        return call(e.dtype, e.op, args);
      }
    }
  }

  private boundOfForm(f: LinearForm): IntBound {
    return linearFormBound(f, this.facts, this.memo.bounds);
  }

  private binary(op: BinaryOp, a: PrimExpr, b: PrimExpr): PrimExpr {
    const folded = foldBinaryConstants(op, a, b, binaryResultType(op, a));
    if (folded !== undefined) return folded;
    if (op === "and" || op === "or") return this.logical(op, a, b);
    if (isComparison(op)) return this.comparison(op, a, b);
    if (!isScalarInt(a)) return this.nonIntegerArith(op, a, b);
    switch (op) {
      case "add":
      case "sub":
      case "mul":
        return this.linearArith(op, a, b);
      case "floordiv":
      case "floormod":
        return b.kind === "IntImm" && b.value !== 0 ? this.floorDivMod(op, a, b.value) : binary(op, a, b);
      case "div":
      case "mod":
        return b.kind === "IntImm" && b.value !== 0 ? this.truncDivMod(op, a, b.value) : binary(op, a, b);
      case "min":
      case "max":
        return this.minMax(op, a, b);
      default:
        return binary(op, a, b);
    }
  }

  private nonIntegerArith(op: BinaryOp, a: PrimExpr, b: PrimExpr): PrimExpr {
    // x * 1.0 is exact for every float (NaN and -0 included); nothing else is rewritten.
    if (op === "mul" && isFloat(a.dtype)) {
      if (b.kind === "FloatImm" && b.value === 1) return a;
      if (a.kind === "FloatImm" && a.value === 1) return b;
    }
    return binary(op, a, b);
  }

  /**
   * The simplification of an integer `+ - *` node, where it is a linear form, kept as that form:
   * the enclosing sum only needs the form of its operand (what `formOf` of the built expression
   * gives), so a chain of sums builds its expression once, at the top (`built`), instead of once
   * per node. Computes what `binary` then the unchanged-node check in `rewrite` give.
   */
  private sum(e: Binary): PrimExpr | PendingSum {
    const a = isIntegerSumNode(e.a) ? this.sum(e.a as Binary) : this.simplify(e.a);
    const b = isIntegerSumNode(e.b) ? this.sum(e.b as Binary) : this.simplify(e.b);
    const op = e.op as "add" | "sub" | "mul";
    // binary's first steps: constants fold (a pending operand has terms: it is no constant), and
    // operands that are not scalar integers are not linear.
    if (!isPending(a) && !isPending(b)) {
      const folded = foldBinaryConstants(op, a, b, a.dtype);
      if (folded !== undefined) return this.unchangedOr(e, folded);
    }
    if (!isPending(a) && !isScalarInt(a)) return this.unchangedOr(e, this.nonIntegerArith(op, a, this.built(b)));
    const fa = isPending(a) ? this.pendingForm(a) : this.formOf(a);
    const fb = isPending(b) ? this.pendingForm(b) : this.formOf(b);
    let result: LinearForm;
    if (op === "add") result = addForms(fa, fb);
    else if (op === "sub") result = subtractForms(fa, fb);
    else if (isConstantForm(fb)) result = scaleForm(fa, fb.constant);
    else if (isConstantForm(fa)) result = scaleForm(fb, fa.constant);
    else return this.unchangedOr(e, binary("mul", this.built(a), this.built(b)));
    const exact = exactForm(result);
    if (exact === undefined) return this.unchangedOr(e, binary(op, this.built(a), this.built(b)));
    return this.pendingOrBuilt(e, recombineDivMod(exact));
  }

  /** `source` as a pending sum of node `e` (a constant is built at once). */
  private pendingOrBuilt(e: Binary, source: LinearForm): PrimExpr | PendingSum {
    if (isConstantForm(source)) return this.unchangedOr(e, this.toExpr(source));
    return { kind: "PendingSum", node: e, source, expr: undefined };
  }

  /** What `formOf` of the pending sum's expression gives, without building it where it can. */
  private pendingForm(x: PendingSum): LinearForm {
    return (x.expr === undefined ? formOfRebuilt(x.source) : undefined) ?? this.formOf(this.built(x));
  }

  /** The expression of a pending sum (as `linearArith` builds it, once), or the expression itself. */
  private built(x: PrimExpr | PendingSum): PrimExpr {
    if (!isPending(x)) return x;
    if (x.expr === undefined) x.expr = this.unchangedOr(x.node, this.toExpr(x.source));
    return x.expr;
  }

  /** `r`, or node `e` where `r` is `e` rebuilt with the same operands (unchanged code stays shared). */
  private unchangedOr(e: Binary, r: PrimExpr): PrimExpr {
    return r.kind === "Binary" && r.op === e.op && r.a === e.a && r.b === e.b && r.dtype === e.dtype ? e : r;
  }

  private linearArith(op: "add" | "sub" | "mul", a: PrimExpr, b: PrimExpr): PrimExpr {
    const fa = this.formOf(a);
    const fb = this.formOf(b);
    let result: LinearForm;
    if (op === "add") result = addForms(fa, fb);
    else if (op === "sub") result = subtractForms(fa, fb);
    else if (isConstantForm(fb)) result = scaleForm(fa, fb.constant);
    else if (isConstantForm(fa)) result = scaleForm(fb, fa.constant);
    else return binary("mul", a, b);
    const exact = exactForm(result);
    return exact === undefined ? binary(op, a, b) : this.toExpr(recombineDivMod(exact));
  }

  private floorDivMod(op: "floordiv" | "floormod", a: PrimExpr, c: number): PrimExpr {
    const dt = a.dtype;
    if (c === 1) return op === "floordiv" ? a : intImm(0, dt);
    if (a.kind === "Binary" && a.b.kind === "IntImm" && c > 0 && a.b.value > 0) {
      if (op === "floordiv" && a.op === "floordiv" && a.b.value * c <= dtypeBound(dt).max) return this.floorDivMod("floordiv", a.a, a.b.value * c);
      if (op === "floormod" && a.op === "floormod" && a.b.value % c === 0) return this.floorDivMod("floormod", a.a, c);
    }
    const form = this.formOf(a);
    if (isUnsigned(dt) && !this.isWrapFreeSum(form)) return this.wrappingDivMod(op, a, form, c);
    const multiples = form.terms.filter((t) => t.coef % c === 0);
    const rest = form.terms.filter((t) => t.coef % c !== 0);
    const quotient: LinearForm = {
      dtype: dt,
      terms: multiples.map((t) => ({ ...t, coef: t.coef / c })),
      constant: floorDivInt(form.constant, c),
    };
    const remainder: LinearForm = { dtype: dt, terms: rest, constant: floorModInt(form.constant, c) };
    const rb = this.boundOfForm(remainder);
    const kLow = floorDivInt(rb.min, c);
    const kHigh = floorDivInt(rb.max, c);
    if (Number.isFinite(kLow) && kLow === kHigh) {
      // The remainder part stays inside one period: the division is a constant shift.
      if (op === "floordiv") return this.toExpr(addForms(quotient, constantForm(kLow, dt)));
      return this.toExpr(addForms(remainder, constantForm(-kLow * c, dt)));
    }
    const split = this.reducedCoefficientDivMod(op, quotient, remainder, c);
    if (split !== undefined) return split;
    const scaled = this.scaledDivMod(op, remainder, c);
    if (scaled !== undefined) return this.toExpr(op === "floordiv" ? addForms(quotient, this.formOf(scaled)) : this.formOf(scaled));
    const restExpr = this.toExpr(remainder);
    if (op === "floormod") return binary("floormod", restExpr, intImm(c, dt));
    if (quotient.terms.length === 0 && quotient.constant === 0) return binary("floordiv", restExpr, intImm(c, dt));
    const inner = this.floorDivOfRemainder(restExpr, c);
    return this.toExpr(addForms(quotient, this.formOf(inner)));
  }

  /**
   * Unsigned sums can wrap round 2^bits, and then its linear form's value is not the sum's. Every
   * part of a sum of non-negative terms is at most the whole, so when the whole cannot wrap, no
   * part the division rules split off can either.
   */
  private isWrapFreeSum(f: LinearForm): boolean {
    if (f.constant < 0 || f.terms.some((t) => t.coef < 0)) return false;
    return this.boundOfForm(f).max <= dtypeBound(f.dtype).max;
  }

  /** Does the form of an unsigned operand have the operand's value (no wrap-around)? */
  private formIsExact(f: LinearForm): boolean {
    if (!isUnsigned(f.dtype)) return true;
    const b = this.boundOfForm(f);
    const range = dtypeBound(f.dtype);
    return b.min >= range.min && b.max <= range.max;
  }

  /**
   * Division of an unsigned sum that may wrap: only the remainder by a power of two c survives
   * wrapping (c divides 2^bits), so terms that are multiples of c leave it (TVM's guard).
   */
  private wrappingDivMod(op: "floordiv" | "floormod", a: PrimExpr, form: LinearForm, c: number): PrimExpr {
    const dt = a.dtype;
    if (op === "floordiv" || !dividesWordSize(c, dt)) return binary(op, a, intImm(c, dt));
    const rest: LinearForm = { dtype: dt, terms: form.terms.filter((t) => t.coef % c !== 0), constant: floorModInt(form.constant, c) };
    if (isConstantForm(rest)) return intImm(rest.constant, dt);
    if (rest.terms.length === form.terms.length && rest.constant === form.constant) return binary(op, a, intImm(c, dt));
    return binary("floormod", this.toExpr(rest), intImm(c, dt));
  }

  /**
   * `floordiv/floormod(q·c·x + r·x + s, c)` with `r = coef mod c`: `q·x` leaves the division
   * (an identity for every integer x). Applied only when what stays, `r·x + s`, then lies in one
   * period, so the division disappears (`(c_o·360) // 16` with c_o < 2 is `c_o·22`); otherwise
   * undefined and the division keeps its shape.
   */
  private reducedCoefficientDivMod(op: "floordiv" | "floormod", quotient: LinearForm, remainder: LinearForm, c: number): PrimExpr | undefined {
    if (c <= 0 || remainder.terms.length === 0) return undefined;
    // Coefficients already below c reduce to themselves: the caller has bounded that very form.
    if (remainder.terms.every((t) => t.coef >= 0 && t.coef < c)) return undefined;
    const reduced: LinearForm = {
      ...remainder,
      terms: remainder.terms.map((t) => ({ ...t, coef: floorModInt(t.coef, c) })),
    };
    const rb = this.boundOfForm(reduced);
    const k = floorDivInt(rb.min, c);
    if (!Number.isFinite(k) || k !== floorDivInt(rb.max, c)) return undefined;
    if (op === "floormod") return this.toExpr(addForms(reduced, constantForm(-k * c, remainder.dtype)));
    const moved: LinearForm = {
      ...remainder,
      terms: remainder.terms.map((t) => ({ ...t, coef: floorDivInt(t.coef, c) })).filter((t) => t.coef !== 0),
      constant: k,
    };
    return this.toExpr(addForms(quotient, moved));
  }

  /**
   * `floordiv/floormod(d·y + s, c)` with d dividing c and 0 ≤ s < d: the small part s cannot carry
   * into y, so the division is `floordiv(y, c/d)` and the remainder `floormod(y, c/d)·d + s` (a
   * fused loop `(t·4 + v) // 8` with v < 4 is `t // 2`). Tries the largest such d first; undefined
   * when none applies.
   */
  private scaledDivMod(op: "floordiv" | "floormod", r: LinearForm, c: number): PrimExpr | undefined {
    const candidates: number[] = [];
    for (const t of r.terms) {
      const d = gcdInt(Math.abs(t.coef), c);
      if (d > 1 && d < c && !candidates.includes(d)) candidates.push(d);
    }
    if (candidates.length === 0) return undefined;
    candidates.sort((x, y) => y - x);
    for (const d of candidates) {
      const big = r.terms.filter((t) => t.coef % d === 0);
      const small: LinearForm = { dtype: r.dtype, terms: r.terms.filter((t) => t.coef % d !== 0), constant: r.constant };
      if (big.length === 0) continue;
      const sb = this.boundOfForm(small);
      if (!(sb.min >= 0 && sb.max < d)) continue;
      const y = this.toExpr({ dtype: r.dtype, terms: big.map((t) => ({ ...t, coef: t.coef / d })), constant: 0 });
      const inner = this.floorDivMod(op, y, c / d);
      if (op === "floordiv") return inner;
      return this.toExpr(addForms(scaleForm(this.formOf(inner), d), small));
    }
    return undefined;
  }

  /** `floordiv(r, c)` for the non-multiple part, giving the nested-division rule a chance. */
  private floorDivOfRemainder(r: PrimExpr, c: number): PrimExpr {
    if (r.kind === "Binary" && r.op === "floordiv" && r.b.kind === "IntImm" && c > 0 && r.b.value > 0) {
      return this.floorDivMod("floordiv", r.a, r.b.value * c);
    }
    return binary("floordiv", r, intImm(c, r.dtype));
  }

  private truncDivMod(op: "div" | "mod", a: PrimExpr, c: number): PrimExpr {
    const dt = a.dtype;
    // Unsigned values are never negative: truncation is flooring.
    if (isUnsigned(dt)) return this.floorDivMod(op === "div" ? "floordiv" : "floormod", a, c);
    if (c === 1) return op === "div" ? a : intImm(0, dt);
    if (c === -1) return op === "div" ? this.linearArith("sub", intImm(0, dt), a) : intImm(0, dt);
    const form = this.formOf(a);
    if (form.constant % c === 0 && form.terms.every((t) => t.coef % c === 0)) {
      // Exact division: truncating and flooring agree, whatever the sign.
      if (op === "mod") return intImm(0, dt);
      return this.toExpr({ dtype: dt, terms: form.terms.map((t) => ({ ...t, coef: t.coef / c })), constant: form.constant / c + 0 });
    }
    const ab = this.boundOfForm(form);
    if (ab.min >= 0) {
      // For a ≥ 0: trunc(a / c) = sign(c)·floor(a / |c|) and a mod c = floormod(a, |c|).
      if (op === "mod") return this.floorDivMod("floormod", a, Math.abs(c));
      const q = this.floorDivMod("floordiv", a, Math.abs(c));
      return c > 0 ? q : this.linearArith("sub", intImm(0, dt), q);
    }
    if (ab.max <= 0) {
      // For a ≤ 0: div(a, c) = -div(-a, c) and mod(a, c) = -mod(-a, c).
      const negated = this.linearArith("sub", intImm(0, dt), a);
      return this.linearArith("sub", intImm(0, dt), this.truncDivMod(op, negated, c));
    }
    return binary(op, a, intImm(c, dt));
  }

  private minMax(op: "min" | "max", a: PrimExpr, b: PrimExpr): PrimExpr {
    if (sameExpr(a, b)) return a;
    const fa = this.formOf(a);
    const fb = this.formOf(b);
    if (!this.formIsExact(fa) || !this.formIsExact(fb)) return binary(op, a, b);
    const d = this.boundOfForm(subtractForms(fa, fb));
    const aIsSmaller = d.max <= 0;
    const bIsSmaller = d.min >= 0;
    if (op === "min") {
      if (aIsSmaller) return a;
      if (bIsSmaller) return b;
    } else {
      if (aIsSmaller) return b;
      if (bIsSmaller) return a;
    }
    // Operand order is kept, as TVM's simplifier keeps it (`T.min(31, n - i)` stays so).
    return binary(op, a, b);
  }

  private comparison(op: BinaryOp, a: PrimExpr, b: PrimExpr): PrimExpr {
    if (!isScalarInt(a)) return binary(op, a, b);
    const fa = this.formOf(a);
    const fb = this.formOf(b);
    if (!this.formIsExact(fa) || !this.formIsExact(fb)) return sameExpr(a, b) ? boolImm(op === "eq" || op === "le" || op === "ge") : binary(op, a, b);
    const diff = subtractForms(fa, fb);
    const d = this.boundOfForm(diff);
    const verdict = decideComparison(op, d) ?? decideComparison(op, this.symbolicDifferenceBound(diff, d));
    if (verdict !== undefined) return boolImm(verdict);
    return this.quotientComparison(op, a, b) ?? this.orderedComparison(op, a, b);
  }

  /**
   * TVM's shape of an undecided integer ordering: `a > b` / `a >= b` turn round into `b < a` /
   * `b <= a`, and against a constant the other side's constant offset moves over
   * (`i - 16 >= 0` → `16 <= i`, `x + 3 < 10` → `x < 7`).
   */
  private orderedComparison(op: BinaryOp, a: PrimExpr, b: PrimExpr): PrimExpr {
    if (op === "gt" || op === "ge") return this.orderedComparison(op === "gt" ? "lt" : "le", b, a);
    // Unsigned sides are left alone: moving an offset could leave their range.
    if ((op !== "lt" && op !== "le") || dtypeInfo(a.dtype).code !== "int") return binary(op, a, b);
    if (b.kind === "IntImm") {
      const fa = this.formOf(a);
      if (fa.constant !== 0 && fa.terms.length > 0) return binary(op, this.toExpr({ ...fa, constant: 0 }), intImm(b.value - fa.constant, b.dtype));
    } else if (a.kind === "IntImm") {
      const fb = this.formOf(b);
      if (fb.constant !== 0 && fb.terms.length > 0) return binary(op, intImm(a.value - fb.constant, a.dtype), this.toExpr({ ...fb, constant: 0 }));
    }
    return binary(op, a, b);
  }

  /**
   * Bounds of `±v - e + c` with v in a symbolic range whose ends are e plus constants: v moved to
   * the end that maximises (minimises) it leaves a constant, so `v - n` with v in [0, n - 1] is at
   * most -1. Like TVM's transitive comparisons (a consumer's `v < n` over a producer's `[0, n)`),
   * it compares v with its own range's ends only, not with other expressions of them.
   */
  private symbolicDifferenceBound(f: LinearForm, known: IntBound): IntBound {
    const rangeOf = this.facts.symbolicRangeOf?.bind(this.facts);
    if (rangeOf === undefined) return known;
    const ranged = f.terms.filter((t) => t.atom.kind === "Var" && rangeOf(t.atom) !== undefined);
    if (ranged.length !== 1 || Math.abs(ranged[0]!.coef) !== 1) return known;
    const atEnds = (upper: boolean): LinearForm => {
      let g: LinearForm = { ...f, terms: f.terms.filter((t) => !ranged.includes(t)) };
      for (const t of ranged) {
        const r = rangeOf(t.atom as Var)!;
        g = addForms(g, scaleForm(this.formOf(t.coef > 0 === upper ? r.max : r.min), t.coef));
      }
      return g;
    };
    const low = atEnds(false);
    const high = atEnds(true);
    return {
      min: isConstantForm(low) ? Math.max(known.min, low.constant) : known.min,
      max: isConstantForm(high) ? Math.min(known.max, high.constant) : known.max,
    };
  }

  /**
   * `floordiv(x, c) op k` (c > 0, k constant, either side) compares x with a bound instead, as
   * TVM's `floordiv(x, c1) < c2 → x < c1 * c2`: `q < k ⟺ x < c·k`, `q ≤ k ⟺ x ≤ c·k + c - 1`.
   */
  private quotientComparison(op: BinaryOp, a: PrimExpr, b: PrimExpr): PrimExpr | undefined {
    if (op === "eq" || op === "ne") return undefined;
    const quotientLeft = isQuotientByPositive(a) && b.kind === "IntImm";
    if (!quotientLeft && !(isQuotientByPositive(b) && a.kind === "IntImm")) return undefined;
    const q = (quotientLeft ? a : b) as PrimExpr & { kind: "Binary" };
    const k = (quotientLeft ? b : a) as PrimExpr & { kind: "IntImm" };
    const c = (q.b as PrimExpr & { kind: "IntImm" }).value;
    // With q on the left, q op k; on the right k op q, i.e. q op' k with op' the mirrored op.
    const qOp = quotientLeft ? op : MIRRORED_COMPARE[op]!;
    // q < k and q >= k split at x = c·k; q <= k and q > k split after the last x with q = k.
    const bound = qOp === "lt" || qOp === "ge" ? c * k.value : c * k.value + c - 1;
    const { min, max } = intRange(q.a.dtype);
    if (!Number.isSafeInteger(bound) || bound < min || bound > max) return undefined;
    const boundExpr = intImm(bound, q.a.dtype);
    return quotientLeft ? this.comparison(op, q.a, boundExpr) : this.comparison(op, boundExpr, q.a);
  }

  private logical(op: "and" | "or", a: PrimExpr, b: PrimExpr): PrimExpr {
    const absorbing = op === "and" ? 0 : 1;
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (x.kind === "IntImm") return x.value === absorbing ? boolImm(absorbing === 1) : y;
    }
    if (sameExpr(a, b)) return a;
    if (op === "and") return this.tightenedBelowRemainder(a, b) ?? this.tightenedBelowRemainder(b, a, true) ?? binary(op, a, b);
    return binary(op, a, b);
  }

  /**
   * `x < c1 && floormod(x, c2) < c3` (TVM's rule): the last, partial period below c1 holds r
   * values of x with remainders 0..r-1 (r = c1 mod c2, or c2 when c2 divides c1); when r > c3
   * the remainder test already rejects its top r - c3, so the bound becomes `c1 - r + c3`.
   * `swapped`: the remainder test is the left operand.
   */
  private tightenedBelowRemainder(bound: PrimExpr, rem: PrimExpr, swapped = false): PrimExpr | undefined {
    if (bound.kind !== "Binary" || (bound.op !== "lt" && bound.op !== "le") || bound.b.kind !== "IntImm") return undefined;
    if (rem.kind !== "Binary" || rem.op !== "lt" || rem.b.kind !== "IntImm") return undefined;
    const m = rem.a;
    if (m.kind !== "Binary" || m.op !== "floormod" || m.b.kind !== "IntImm" || m.b.value <= 0) return undefined;
    if (!sameExpr(m.a, bound.a)) return undefined;
    const c1 = bound.op === "lt" ? bound.b.value : bound.b.value + 1;
    const c2 = m.b.value;
    const c3 = rem.b.value;
    const r = floorModInt(c1, c2) === 0 ? c2 : floorModInt(c1, c2);
    if (!(r > c3) || c3 < 0) return undefined;
    const tightened = this.comparison("lt", bound.a, intImm(c1 - r + c3, bound.b.dtype));
    return swapped ? this.logical("and", rem, tightened) : this.logical("and", tightened, rem);
  }

  private not(a: PrimExpr): PrimExpr {
    if (a.kind === "IntImm") return boolImm(a.value === 0);
    if (a.kind === "Not") return a.a;
    // Negating an integer comparison flips it; float comparisons are left alone because of NaN.
    if (a.kind === "Binary" && isScalarInt(a.a)) {
      const flipped = NEGATED_COMPARE[a.op];
      if (flipped !== undefined) return binary(flipped, a.a, a.b);
    }
    return { kind: "Not", dtype: a.dtype, a };
  }
}

/** A sum whose expression is not built yet: `source` as `linearArith` would build it for `node`; `expr` once built. */
interface PendingSum {
  readonly kind: "PendingSum";
  readonly node: Binary;
  readonly source: LinearForm;
  expr: PrimExpr | undefined;
}

function isPending(x: PrimExpr | PendingSum): x is PendingSum {
  return x.kind === "PendingSum";
}

/** An integer `+`, `-` or `*` of scalars: the nodes linear forms are made of. */
function isIntegerSumNode(e: PrimExpr): boolean {
  return e.kind === "Binary" && (e.op === "add" || e.op === "sub" || e.op === "mul") && isScalarInt(e);
}

function binaryResultType(op: BinaryOp, a: PrimExpr): string {
  return isComparison(op) ? "bool" : a.dtype;
}

/** Is `op` one of the keys of NEGATED_COMPARE (a switch: this runs for every node simplified)? */
function isComparison(op: BinaryOp): boolean {
  switch (op) {
    case "eq":
    case "ne":
    case "lt":
    case "ge":
    case "gt":
    case "le":
      return true;
    default:
      return false;
  }
}

/** Decides `a op b` from the bounds `d` of `a - b`, or undefined when the bounds do not settle it. */
function decideComparison(op: BinaryOp, d: IntBound): boolean | undefined {
  switch (op) {
    case "eq":
      if (d.min === 0 && d.max === 0) return true;
      return d.min > 0 || d.max < 0 ? false : undefined;
    case "ne":
      if (d.min === 0 && d.max === 0) return false;
      return d.min > 0 || d.max < 0 ? true : undefined;
    case "lt":
      return d.max < 0 ? true : d.min >= 0 ? false : undefined;
    case "le":
      return d.max <= 0 ? true : d.min > 0 ? false : undefined;
    case "gt":
      return d.min > 0 ? true : d.max <= 0 ? false : undefined;
    case "ge":
      return d.min >= 0 ? true : d.max < 0 ? false : undefined;
    default:
      return undefined;
  }
}

/**
 * The form with coefficients a double holds exactly, unsigned ones past 2^bits reduced modulo
 * 2^bits (the arithmetic wraps); undefined where a coefficient is no longer exact.
 */
function exactForm(f: LinearForm): LinearForm | undefined {
  if (!Number.isSafeInteger(f.constant) || f.terms.some((t) => !Number.isSafeInteger(t.coef))) return undefined;
  const info = dtypeInfo(f.dtype);
  if (info.code !== "uint" || info.bits > 32) return f;
  const word = 2 ** info.bits;
  const reduce = (v: number): number => (v >= word ? v % word : v);
  if (f.constant < word && f.terms.every((t) => t.coef < word)) return f;
  return { ...f, constant: reduce(f.constant), terms: f.terms.map((t) => ({ ...t, coef: reduce(t.coef) })).filter((t) => t.coef !== 0) };
}

/** Replaces `floordiv(x, c)·k·c + floormod(x, c)·k` by `x·k` inside a linear form. */
function recombineDivMod(f: LinearForm): LinearForm {
  for (const modTerm of f.terms) {
    const m = modTerm.atom;
    // div(x, c)·c + mod(x, c) = x holds for the truncating pair as for the flooring one.
    if (m.kind !== "Binary" || (m.op !== "floormod" && m.op !== "mod") || m.b.kind !== "IntImm" || m.b.value <= 0) continue;
    const divOp = m.op === "mod" ? "div" : "floordiv";
    const divTerm = f.terms.find((t) => t.coef === modTerm.coef * (m.b as { value: number }).value && isDivOf(t, divOp, m.a, m.b));
    if (divTerm === undefined) continue;
    const others: LinearForm = { ...f, terms: f.terms.filter((t) => t !== modTerm && t !== divTerm) };
    return recombineDivMod(addForms(others, scaleForm(linearFormOf(m.a), modTerm.coef)));
  }
  return f;
}

/** Is the term's atom `op(a, b)` (compared as `exprKey`s, which is what the term keys are)? */
function isDivOf(t: LinearTerm, op: "floordiv" | "div", a: PrimExpr, b: PrimExpr): boolean {
  // Mixed dtypes: the divisor node would get casts, so compare with the key of that node.
  if (a.dtype !== b.dtype) return t.key === exprKey(binary(op, a, b));
  const x = t.atom;
  return x.kind === "Binary" && x.op === op && sameExpr(x.a, a) && sameExpr(x.b, b);
}

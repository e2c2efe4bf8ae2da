/**
 * Rewrites index expressions over input iterators into iterator-map form.
 *
 * Works on a numeric linear form (`terms` with constant lower factor, extent and scale, plus a
 * constant base) and turns it into `IterSplit`/`IterSum` objects at the end. The rules:
 *
 * - an input var of extent 1 is the constant `min`; any other is one full split of its own mark;
 * - `+`, `-` and `* constant` combine linear forms term by term;
 * - `floordiv`/`floormod` by a positive constant first try to split the sum into a part whose
 *   scales the divisor divides and a small remainder (`floordiv(i*4 + j, 4)` → `i`,
 *   `floormod(i*32 + j, 32)` → `j`); otherwise the sum is fused into one split (`fuse`) and the
 *   division becomes a digit of that split's mark (`floordiv(f, 16)`, `floormod(f, 16)`);
 * - fusing needs the terms to form a contiguous chain by scale (`i0*32 + i1` with `i1 < 32`);
 *   a chain of consecutive digits of one mark recombines into that mark (`f//4*4 + f%4` → `f`).
 *
 * Fused marks are cached by structure so that the same fused sum seen in two indices is one mark,
 * which the coverage check then sees split consistently.
 */
import type { PrimExpr, Var } from "../../expr.js";
import { describeExpr as renderExprForDiff } from "../../printer/expr-text.js";
import { type IterMark, type IterSplit, type IterSum, iterMark, iterSplit, iterSum, markExtent } from "./types.js";

/** Thrown inside the rewriter to abandon one expression; turned into an error string by the caller. */
export class IterMapFailure extends Error {
  override name = "IterMapFailure";
}

export interface Term {
  readonly mark: IterMark;
  readonly lower: number;
  readonly extent: number;
  readonly scale: number;
}

export interface LinearForm {
  readonly terms: readonly Term[];
  readonly base: number;
}

export interface InputIterator {
  readonly v: Var;
  readonly min: number;
  readonly extent: number;
}

const constantForm = (base: number): LinearForm => ({ terms: [], base });

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

function floorMod(a: number, b: number): number {
  return a - Math.floor(a / b) * b;
}

/** Largest value of the terms (all scales positive) — the sum ranges over `[0, maxValue]`. */
function maxValue(terms: readonly Term[]): number {
  return terms.reduce((acc, t) => acc + t.scale * (t.extent - 1), 0);
}

export class IterMapRewriter {
  private readonly inputs = new Map<Var, InputIterator & { index: number }>();
  private readonly inputMarks = new Map<Var, IterMark>();
  private readonly fusedMarks = new Map<string, IterMark>();
  private readonly markKeys = new Map<IterMark, string>();

  /**
   * @param extentOverrides mark key → tighter extent, from predicates such as `i0*32 + i1 < 100`.
   */
  constructor(
    inputs: readonly InputIterator[],
    private readonly dtype: string,
    private readonly extentOverrides: ReadonlyMap<string, number> = new Map(),
    /** The map need not be bijective: fused digits may overlap (see `fusionChain`). */
    private readonly surjective = false,
  ) {
    inputs.forEach((it, index) => this.inputs.set(it.v, { v: it.v, min: it.min, extent: it.extent, index }));
  }

  /** The mark of input iterator `v`. */
  inputMark(v: Var): IterMark {
    if (!this.inputs.has(v)) throw new IterMapFailure(`${v.name} is not an input iterator`);
    return this.markOf(v);
  }

  /** Every mark made so far; the parts of a fused mark come before it. */
  marksInCreationOrder(): IterMark[] {
    return [...this.markKeys.keys()];
  }

  keyOf(mark: IterMark): string {
    const key = this.markKeys.get(mark);
    if (key === undefined) throw new IterMapFailure("internal: mark without key");
    return key;
  }

  /** The mark of an input iterator (its source shifted to start at 0). */
  private markOf(v: Var): IterMark {
    let mark = this.inputMarks.get(v);
    if (mark === undefined) {
      const it = this.inputs.get(v)!;
      const key = `v${it.index}`;
      const source: PrimExpr = it.min === 0 ? v : { kind: "Binary", op: "sub", dtype: v.dtype, a: v, b: { kind: "IntImm", dtype: v.dtype, value: it.min } };
      mark = iterMark(source, Math.min(it.extent, this.extentOverrides.get(key) ?? Infinity), v.dtype);
      this.inputMarks.set(v, mark);
      this.markKeys.set(mark, key);
    }
    return mark;
  }

  // -------------------------------------------------------------------------------------------
  // Expression → linear form

  linear(e: PrimExpr): LinearForm {
    switch (e.kind) {
      case "IntImm":
        return constantForm(e.value);
      case "Var": {
        const it = this.inputs.get(e);
        if (it === undefined) throw new IterMapFailure(`${e.name} is not an input iterator`);
        const mark = this.markOf(e);
        return this.single(mark, 1, markExtent(mark), 1, it.min);
      }
      case "Cast":
        return this.linear(e.value);
      case "Binary":
        return this.binary(e.op, e.a, e.b, e);
      default:
        throw new IterMapFailure(`${renderExprForDiff(e)} is not an affine expression of the iterators`);
    }
  }

  private single(mark: IterMark, lower: number, extent: number, scale: number, base: number): LinearForm {
    return extent === 1 ? constantForm(base) : { terms: [{ mark, lower, extent, scale }], base };
  }

  private binary(op: string, a: PrimExpr, b: PrimExpr, whole: PrimExpr): LinearForm {
    switch (op) {
      case "add":
        return addForms(this.linear(a), this.linear(b));
      case "sub":
        return addForms(this.linear(a), scaleForm(this.linear(b), -1));
      case "mul": {
        const [x, y] = [this.linear(a), this.linear(b)];
        if (y.terms.length === 0) return scaleForm(x, y.base);
        if (x.terms.length === 0) return scaleForm(y, x.base);
        throw new IterMapFailure(`${renderExprForDiff(whole)} multiplies two iterator expressions`);
      }
      case "floordiv":
      case "floormod": {
        const divisor = this.linear(b);
        if (divisor.terms.length !== 0 || divisor.base <= 0) {
          throw new IterMapFailure(`${renderExprForDiff(whole)}: the divisor must be a positive constant`);
        }
        const x = this.linear(a);
        return op === "floordiv" ? this.divide(x, divisor.base, whole) : this.modulo(x, divisor.base, whole);
      }
      default:
        throw new IterMapFailure(`${renderExprForDiff(whole)}: operator ${op} is not affine`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Division and remainder

  private divide(x: LinearForm, c: number, whole: PrimExpr): LinearForm {
    if (x.terms.length === 0) return constantForm(floorDiv(x.base, c));
    const high = x.terms.filter((t) => t.scale % c === 0);
    const low = x.terms.filter((t) => t.scale % c !== 0);
    const rest = floorMod(x.base, c);
    if (low.every((t) => t.scale > 0) && maxValue(low) + rest < c) {
      // floor((c·H + L + c·q + r) / c) = H + q when 0 ≤ L + r < c.
      return { terms: high.map((t) => ({ ...t, scale: t.scale / c })), base: floorDiv(x.base, c) };
    }
    if (rest !== 0) throw new IterMapFailure(`${renderExprForDiff(whole)}: the offset ${x.base} is not a multiple of ${c}`);
    const t = this.fuse(x.terms, whole);
    return addForms(this.divideTerm(t, c, whole), constantForm(x.base / c));
  }

  private modulo(x: LinearForm, c: number, whole: PrimExpr): LinearForm {
    if (x.terms.length === 0) return constantForm(floorMod(x.base, c));
    // floormod(c·H + L + b, c) = floormod(L + b, c): terms with scales divisible by c drop out.
    const low = x.terms.filter((t) => t.scale % c !== 0);
    const rest = floorMod(x.base, c);
    if (low.every((t) => t.scale > 0) && maxValue(low) + rest < c) return { terms: low, base: rest };
    if (rest !== 0) throw new IterMapFailure(`${renderExprForDiff(whole)}: the offset ${x.base} is not a multiple of ${c}`);
    // Prefer the digits of the whole fused sum, so that a `floordiv` of the same sum by `c`
    // takes the complementary digits of the same mark.
    return this.moduloTerm(this.tryFuse(x.terms, whole) ?? this.fuse(low, whole), c, whole);
  }

  private tryFuse(terms: readonly Term[], whole: PrimExpr): Term | undefined {
    try {
      return this.fuse(terms, whole);
    } catch (e) {
      if (e instanceof IterMapFailure) return undefined;
      throw e;
    }
  }

  /** A term spans to the top of its mark: its digits are the most significant ones. */
  private isOutermost(t: Term): boolean {
    return t.lower * t.extent >= markExtent(t.mark);
  }

  private divideTerm(t: Term, c: number, whole: PrimExpr): LinearForm {
    if (t.scale % c === 0) return this.single(t.mark, t.lower, t.extent, t.scale / c, 0);
    if (c % t.scale !== 0) throw new IterMapFailure(`${renderExprForDiff(whole)}: ${c} and the scale ${t.scale} do not divide`);
    const digits = c / t.scale;
    if (digits >= t.extent) return constantForm(0);
    if (t.extent % digits === 0 || this.isOutermost(t)) {
      return this.single(t.mark, t.lower * digits, Math.ceil(t.extent / digits), 1, 0);
    }
    throw new IterMapFailure(`${renderExprForDiff(whole)}: extent ${t.extent} is not divisible by ${digits}`);
  }

  private moduloTerm(t: Term, c: number, whole: PrimExpr): LinearForm {
    if (t.scale % c === 0) return constantForm(0);
    if (c % t.scale !== 0) throw new IterMapFailure(`${renderExprForDiff(whole)}: ${c} and the scale ${t.scale} do not divide`);
    const digits = c / t.scale;
    if (digits >= t.extent) return this.single(t.mark, t.lower, t.extent, t.scale, 0);
    if (t.extent % digits === 0 || this.isOutermost(t)) return this.single(t.mark, t.lower, digits, t.scale, 0);
    throw new IterMapFailure(`${renderExprForDiff(whole)}: extent ${t.extent} is not divisible by ${digits}`);
  }

  // -------------------------------------------------------------------------------------------
  // Fusion

  /** Turns a sum of terms into one term, or explains why the terms are not one iterator. */
  fuse(terms: readonly Term[], whole: PrimExpr): Term {
    if (terms.length === 0) throw new IterMapFailure("internal: fusing no terms");
    const negative = terms.find((t) => t.scale <= 0);
    if (negative !== undefined) {
      throw new IterMapFailure(`${renderExprForDiff(whole)}: iterator ${this.describeMark(negative.mark)} has a negative coefficient`);
    }
    this.checkDistinctDigits(terms, whole);
    const sorted = [...terms].sort((a, b) => a.scale - b.scale);
    if (sorted.length === 1) return sorted[0]!;
    const unitScale = sorted[0]!.scale;
    const { chain, extent, overlapping } = this.fusionChain(sorted, whole);
    if (!overlapping) {
      const recombined = this.recombine(chain);
      if (recombined !== undefined) return { ...recombined, scale: unitScale };
    }
    // Most significant part first, as the fused expression is usually written (`i0*32 + i1`).
    const normalized = chain.map((t) => ({ ...t, scale: t.scale / unitScale })).reverse();
    const mark = this.fusedMark(normalized, extent);
    return { mark, lower: 1, extent: markExtent(mark), scale: unitScale };
  }

  /**
   * Orders the terms (sorted by scale) into a chain, lowest digit first, where each next scale is
   * the span of the digits below it (`i0*32 + i1` with `i1 < 32`), and works out the fused extent
   * in units of the lowest scale. For a surjective map whose lowest scale is 1, TVM also accepts a
   * next scale below that span, the closest one (`v0*2 + v1` with `v1 < 4`: rows overlap, the
   * fused extent is 12 + the 2 overlapped = 14, and every value in [0, 14) is reached).
   */
  private fusionChain(sorted: readonly Term[], whole: PrimExpr): { chain: Term[]; extent: number; overlapping: boolean } {
    const remaining = sorted.slice(1);
    const chain = [sorted[0]!];
    let expected = sorted[0]!.scale * sorted[0]!.extent;
    let overlap = 0;
    const mayOverlap = this.surjective && sorted[0]!.scale === 1;
    while (remaining.length > 0) {
      let k = remaining.findIndex((t) => t.scale === expected);
      if (k < 0 && mayOverlap) {
        // The largest scale not above the span (remaining is sorted by scale).
        for (let j = remaining.length - 1; j >= 0 && k < 0; j--) if (remaining[j]!.scale <= expected) k = j;
        if (k >= 0) overlap += expected - remaining[k]!.scale;
      }
      if (k < 0) {
        const t = remaining[0]!;
        throw new IterMapFailure(
          `${renderExprForDiff(whole)}: iterator ${this.describeMark(t.mark)} has coefficient ${t.scale} where ${expected} is needed for a fused iterator`,
        );
      }
      const [t] = remaining.splice(k, 1);
      chain.push(t!);
      expected = t!.scale * t!.extent;
    }
    return { chain, extent: expected / sorted[0]!.scale + overlap, overlapping: overlap > 0 };
  }

  /** Consecutive digits of one mark, lowest first, are that mark's wider digit. */
  private recombine(sorted: readonly Term[]): Term | undefined {
    const mark = sorted[0]!.mark;
    let lower = sorted[0]!.lower;
    for (const t of sorted) {
      if (t.mark !== mark || t.lower !== lower) return undefined;
      lower *= t.extent;
    }
    const first = sorted[0]!;
    // A chain ending in a rounded-up top digit covers no more than the mark itself.
    const extent = Math.min(lower / first.lower, Math.ceil(markExtent(mark) / first.lower));
    return { mark, lower: first.lower, extent, scale: 1 };
  }

  private checkDistinctDigits(terms: readonly Term[], whole: PrimExpr): void {
    for (let i = 0; i < terms.length; i++) {
      for (let j = i + 1; j < terms.length; j++) {
        const [a, b] = [terms[i]!, terms[j]!];
        if (a.mark === b.mark && a.lower < b.lower * b.extent && b.lower < a.lower * a.extent) {
          throw new IterMapFailure(`${renderExprForDiff(whole)}: iterator ${this.describeMark(a.mark)} is used more than once`);
        }
      }
    }
  }

  private fusedMark(terms: readonly Term[], extent: number): IterMark {
    const key = `(${terms.map((t) => `${this.keyOf(t.mark)}:${t.lower}:${t.extent}:${t.scale}`).join(",")})`;
    let mark = this.fusedMarks.get(key);
    if (mark === undefined) {
      const source = this.toIterSum({ terms, base: 0 });
      mark = iterMark(source, Math.min(extent, this.extentOverrides.get(key) ?? Infinity), this.dtype);
      this.fusedMarks.set(key, mark);
      this.markKeys.set(mark, key);
    }
    return mark;
  }

  describeMark(mark: IterMark): string {
    const source = mark.source;
    if (source.kind === "IterSum") return `(${source.args.map((s) => this.describeMark(s.source)).join(", ")})`;
    return renderExprForDiff(source);
  }

  // -------------------------------------------------------------------------------------------
  // Back to the public forms

  toIterSum(form: LinearForm): IterSum {
    const args: IterSplit[] = form.terms.map((t) => iterSplit(t.mark, t.lower, t.extent, t.scale));
    return iterSum(args, form.base, this.dtype);
  }
}

function addForms(a: LinearForm, b: LinearForm): LinearForm {
  return { terms: [...a.terms, ...b.terms], base: a.base + b.base };
}

function scaleForm(a: LinearForm, c: number): LinearForm {
  if (c === 0) return constantForm(0);
  return { terms: a.terms.map((t) => ({ ...t, scale: t.scale * c })), base: a.base * c };
}

/**
 * The canonical simplifier's normal forms (TVM's SplitExpr and SumExpr):
 *
 * - a split term is `(index % upper) / lower * scale`, with its division mode (truncating or
 *   flooring), `upper` a multiple of `lower` or +Infinity;
 * - a sum is `sum(terms) + base`, its terms kept in segments of equal index, each segment in
 *   descending order of `lower`.
 *
 * Forms are values: every operation returns a new form. Scales are JS numbers; an operation
 * whose result would leave the exactly representable integers throws `CanonicalOverflow`, and
 * the simplifier then leaves the expression to the rewrite simplifier.
 */
import type { DType } from "../../dtype.js";
import type { PrimExpr } from "../../expr.js";
import { sameExpr } from "../exprKey.js";

export type DivMode = "trunc" | "floor";

export interface SplitTerm {
  readonly kind: "Split";
  readonly dtype: DType;
  readonly index: PrimExpr;
  readonly lower: number;
  /** +Infinity when there is no modulus. */
  readonly upper: number;
  readonly scale: number;
  readonly mode: DivMode;
}

export interface SumForm {
  readonly kind: "Sum";
  readonly dtype: DType;
  readonly terms: readonly SplitTerm[];
  readonly base: number;
}

export type CanonicalForm = SplitTerm | SumForm;

/** What the canonical simplifier's visitor returns: an expression or a form still open to merging. */
export type Canonical = PrimExpr | CanonicalForm;

export class CanonicalOverflow extends Error {
  constructor() {
    super("canonical form: a scale left the exactly representable integers");
  }
}

export function checked(v: number): number {
  if (!Number.isSafeInteger(v)) throw new CanonicalOverflow();
  return v;
}

export function isForm(c: Canonical): c is CanonicalForm {
  return c.kind === "Split" || c.kind === "Sum";
}

export function splitOf(index: PrimExpr): SplitTerm {
  return { kind: "Split", dtype: index.dtype, index, lower: 1, upper: Infinity, scale: 1, mode: "trunc" };
}

export function withSplit(t: SplitTerm, change: Partial<Omit<SplitTerm, "kind">>): SplitTerm {
  return { ...t, ...change };
}

export function sumOf(dtype: DType, terms: readonly SplitTerm[], base: number): SumForm {
  return { kind: "Sum", dtype, terms, base };
}

export function sameIndex(a: SplitTerm, b: SplitTerm): boolean {
  return a.index === b.index || sameExpr(a.index, b.index);
}

/** TVM's DivModeCompatibleTo: the same mode, or a plain index where the mode does not matter. */
export function modeCompatible(t: SplitTerm, mode: DivMode): boolean {
  return t.mode === mode || (t.lower === 1 && t.upper === Infinity);
}

export function isZeroSum(s: SumForm): boolean {
  return s.base === 0 && s.terms.length === 0;
}

export function sumDivisibleBy(s: SumForm, c: number): boolean {
  return s.base % c === 0 && s.terms.every((t) => t.scale % c === 0);
}

export function scaleSum(s: SumForm, c: number): SumForm {
  return sumOf(
    s.dtype,
    s.terms.map((t) => withSplit(t, { scale: checked(t.scale * c) })),
    checked(s.base * c),
  );
}

/** Exact division of every coefficient by `c` (the caller checked divisibility). */
export function divideSum(s: SumForm, c: number): SumForm {
  return sumOf(
    s.dtype,
    s.terms.map((t) => withSplit(t, { scale: t.scale / c })),
    s.base / c,
  );
}

export function addConstant(s: SumForm, c: number): SumForm {
  return sumOf(s.dtype, s.terms, checked(s.base + c));
}

/** `s + t * scale`, keeping segments of equal index together and in descending `lower`. */
export function addTerm(s: SumForm, term: SplitTerm, scale: number): SumForm {
  if (term.scale === 0) return s;
  const terms = [...s.terms];
  const scaled = (): SplitTerm => withSplit(term, { scale: checked(term.scale * scale) });
  let start = 0;
  while (start < terms.length && !sameIndex(terms[start]!, term)) start++;
  for (let j = start; j < terms.length; j++) {
    const t = terms[j]!;
    if (!sameIndex(t, term) || term.lower > t.lower) {
      terms.splice(j, 0, scaled());
      return sumOf(s.dtype, terms, s.base);
    }
    if (term.lower === t.lower && term.upper === t.upper && modeCompatible(term, t.mode)) {
      terms[j] = withSplit(t, { scale: checked(t.scale + term.scale * scale) });
      return sumOf(s.dtype, terms, s.base);
    }
  }
  terms.push(scaled());
  return sumOf(s.dtype, terms, s.base);
}

export function addSum(s: SumForm, other: SumForm, scale: number): SumForm {
  let acc = s;
  for (const t of other.terms) acc = addTerm(acc, t, scale);
  return addConstant(acc, checked(other.base * scale));
}

/** TVM's SeparateDivisibleParts: the terms (and base) whose coefficient `c` divides, and the rest. */
export function separateDivisible(s: SumForm, c: number): { divisible: SumForm; rest: SumForm } {
  const baseDivides = s.base % c === 0;
  return {
    divisible: sumOf(
      s.dtype,
      s.terms.filter((t) => t.scale % c === 0),
      baseDivides ? s.base : 0,
    ),
    rest: sumOf(
      s.dtype,
      s.terms.filter((t) => t.scale % c !== 0),
      baseDivides ? 0 : s.base,
    ),
  };
}

const MODE_RANK: Record<DivMode, number> = { trunc: 0, floor: 1 };

/**
 * TVM's SimplifySplitExprs: within a segment, folds terms of the same split and merges
 * `(x / (c*s)) * s + (x % (c*s)) / c` into `x / c`; then orders terms by descending scale,
 * lower factor, upper factor and division mode (a stable sort).
 */
export function mergeSplitTerms(input: readonly SplitTerm[]): SplitTerm[] {
  const terms = [...input];
  for (let i = 0; i < terms.length; i++) {
    if (terms[i]!.scale === 0) continue;
    for (let j = i + 1; j < terms.length; j++) {
      const lhs = terms[i]!;
      const rhs = terms[j]!;
      if (!sameIndex(lhs, rhs)) break;
      if (lhs.upper < rhs.lower) break;
      if (lhs.upper === rhs.upper && lhs.lower === rhs.lower && modeCompatible(lhs, rhs.mode)) {
        terms[j] = withSplit(rhs, { scale: checked(rhs.scale + lhs.scale) });
        terms[i] = withSplit(lhs, { scale: 0 });
      } else if (
        lhs.lower === rhs.upper &&
        rhs.scale !== 0 &&
        lhs.scale % rhs.scale === 0 &&
        lhs.lower === (lhs.scale / rhs.scale) * rhs.lower &&
        modeCompatible(lhs, rhs.mode)
      ) {
        terms[j] = withSplit(rhs, { upper: lhs.upper });
        terms[i] = withSplit(lhs, { scale: 0 });
        break;
      }
    }
  }
  return terms
    .map((t, k) => ({ t, k }))
    .sort((p, q) => {
      const [a, b] = [p.t, q.t];
      if (a.scale !== b.scale) return b.scale - a.scale;
      if (a.lower !== b.lower) return b.lower - a.lower;
      if (a.upper !== b.upper) return a.upper > b.upper ? -1 : 1;
      if (a.mode !== b.mode) return MODE_RANK[b.mode] - MODE_RANK[a.mode];
      return p.k - q.k;
    })
    .map((p) => p.t);
}

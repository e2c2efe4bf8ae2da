/**
 * Canonical linear form of integer expressions: `Σ coef·atom + constant`, where atoms are the
 * sub-expressions that are not sums, differences or products by a constant (variables, loads,
 * floordiv/floormod nodes, products of two non-constants, …). Terms keep the order in which their
 * atoms first appear, so rebuilding is deterministic and close to how the user wrote it.
 */
import type { DType } from "../dtype.js";
import { type PrimExpr, add, intImm, mul, sub } from "../expr.js";
import { exprKey } from "./exprKey.js";
import { type IntBound, type VarBoundFacts, addBounds, constIntBoundOf, pointBound, scaleBound } from "./intBound.js";

export interface LinearTerm {
  readonly atom: PrimExpr;
  readonly key: string;
  readonly coef: number;
}

export interface LinearForm {
  readonly dtype: DType;
  readonly terms: readonly LinearTerm[];
  readonly constant: number;
}

export function constantForm(value: number, dt: DType): LinearForm {
  return { dtype: dt, terms: [], constant: value };
}

/**
 * Decomposes an (already simplified) integer expression into its linear form. `cache` (forms by
 * node identity, filled here) lets a caller that decomposes the same subtrees many times — the
 * barrier planner comparing indices pairwise — do each once.
 */
export function linearFormOf(e: PrimExpr, cache?: Map<PrimExpr, LinearForm>): LinearForm {
  if (e.kind === "IntImm") return constantForm(e.value, e.dtype);
  // Sum and product nodes are mostly built afresh for each use, so only their parts are cached.
  if (cache === undefined || (e.kind === "Binary" && (e.op === "add" || e.op === "sub" || e.op === "mul"))) return decompose(e, cache);
  let form = cache.get(e);
  if (form === undefined) {
    form = decompose(e, cache);
    cache.set(e, form);
  }
  return form;
}

function decompose(e: PrimExpr, cache: Map<PrimExpr, LinearForm> | undefined): LinearForm {
  if (e.kind === "Binary") {
    let f: LinearForm | undefined;
    if (e.op === "add") f = addForms(linearFormOf(e.a, cache), linearFormOf(e.b, cache));
    else if (e.op === "sub") f = subtractForms(linearFormOf(e.a, cache), linearFormOf(e.b, cache));
    else if (e.op === "mul" && e.b.kind === "IntImm") f = scaleForm(linearFormOf(e.a, cache), e.b.value);
    else if (e.op === "mul" && e.a.kind === "IntImm") f = scaleForm(linearFormOf(e.b, cache), e.a.value);
    // A double holds integers exactly only up to 2^53: a form past that is not the node's value
    // (4294967295 * 4294967295 would round to an even number), so the node stays one atom.
    if (f !== undefined && isExactForm(f)) return f;
  }
  return { dtype: e.dtype, terms: [{ atom: e, key: exprKey(e), coef: 1 }], constant: 0 };
}

function isExactForm(f: LinearForm): boolean {
  if (!Number.isSafeInteger(f.constant)) return false;
  for (const t of f.terms) if (!Number.isSafeInteger(t.coef)) return false;
  return true;
}

export function scaleForm(f: LinearForm, k: number): LinearForm {
  if (k === 0) return constantForm(0, f.dtype);
  if (k === 1 && !Object.is(f.constant, -0)) return f;
  const terms: LinearTerm[] = new Array(f.terms.length);
  for (let i = 0; i < f.terms.length; i++) {
    const t = f.terms[i]!;
    terms[i] = { atom: t.atom, key: t.key, coef: t.coef * k };
  }
  // `+ 0` normalises -0, which integers do not have.
  return { dtype: f.dtype, terms, constant: f.constant * k + 0 };
}

/** Sum of two forms; like atoms are merged, zero terms dropped, first-appearance order kept. */
export function addForms(a: LinearForm, b: LinearForm): LinearForm {
  const terms: LinearTerm[] = a.terms.slice();
  let cancelled = a.terms.some((t) => t.coef === 0);
  for (const t of b.terms) {
    let i = 0;
    // Same atom object or same key (comparing objects first spares most string comparisons).
    while (i < terms.length && terms[i]!.key !== t.key) i++;
    if (i === terms.length) terms.push(t);
    else {
      const x = terms[i]!;
      const coef = x.coef + t.coef;
      terms[i] = { atom: x.atom, key: x.key, coef };
      if (coef === 0) cancelled = true;
    }
  }
  return { dtype: a.dtype, terms: cancelled ? terms.filter((t) => t.coef !== 0) : terms, constant: a.constant + b.constant };
}

/**
 * `addForms(a, scaleForm(b, -1))` (the difference a - b) without building the negated form: the
 * simplifier subtracts for every `-` and every bound of a difference.
 */
export function subtractForms(a: LinearForm, b: LinearForm): LinearForm {
  const terms: LinearTerm[] = a.terms.slice();
  let cancelled = a.terms.some((t) => t.coef === 0);
  for (const t of b.terms) {
    const negated = t.coef * -1;
    let i = 0;
    while (i < terms.length && terms[i]!.key !== t.key) i++;
    if (i === terms.length) terms.push({ atom: t.atom, key: t.key, coef: negated });
    else {
      const x = terms[i]!;
      const coef = x.coef + negated;
      terms[i] = { atom: x.atom, key: x.key, coef };
      if (coef === 0) cancelled = true;
    }
  }
  // `* -1 + 0` as scaleForm writes the negated constant (no -0).
  return { dtype: a.dtype, terms: cancelled ? terms.filter((t) => t.coef !== 0) : terms, constant: a.constant + (b.constant * -1 + 0) };
}

export function isConstantForm(f: LinearForm): boolean {
  return f.terms.length === 0;
}

/** Bounds of a form; `cache` as for `constIntBoundOf`. */
export function linearFormBound(f: LinearForm, facts: VarBoundFacts, cache?: Map<PrimExpr, IntBound>): IntBound {
  let b = pointBound(f.constant);
  for (const t of f.terms) b = addBounds(b, scaleBound(constIntBoundOf(t.atom, facts, cache), t.coef));
  return b;
}

function termExpr(t: LinearTerm, magnitude: number): PrimExpr {
  return magnitude === 1 ? t.atom : mul(t.atom, intImm(magnitude, t.atom.dtype));
}

/**
 * Rebuilds an expression in TVM's printing style: positive terms first (`i * 4 + j`), then
 * subtracted ones (`i - j * 2`), then the constant (`+ 3` / `- 3`).
 */
export function linearFormToExpr(f: LinearForm): PrimExpr {
  const dt = f.dtype;
  let acc: PrimExpr | undefined;
  let negatives = 0;
  for (const t of f.terms) {
    if (t.coef > 0) acc = acc === undefined ? termExpr(t, t.coef) : add(acc, termExpr(t, t.coef));
    else if (t.coef < 0) negatives++;
  }
  let constantPending = f.constant !== 0;
  /** The first negative term when it opens the expression (`x * -2 - …`). */
  let opening: LinearTerm | undefined;
  if (acc === undefined && negatives > 0) {
    if (f.constant > 0) {
      acc = intImm(f.constant, dt);
      constantPending = false;
    } else {
      opening = f.terms.find((t) => t.coef < 0)!;
      acc = mul(opening.atom, intImm(opening.coef, dt));
    }
  }
  for (const t of f.terms) if (t.coef < 0 && t !== opening) acc = sub(acc!, termExpr(t, -t.coef));
  if (acc === undefined) return intImm(f.constant, dt);
  if (constantPending) acc = f.constant > 0 ? add(acc, intImm(f.constant, dt)) : sub(acc, intImm(-f.constant, dt));
  return acc;
}

/**
 * What `linearFormOf(linearFormToExpr(f))` returns, without rebuilding and decomposing the
 * expression: the positive terms, then the negative ones, then the constant — or undefined where
 * that does not hold: no terms (the expression is a constant), or an atom of another dtype than
 * the form (the rebuilt expression casts it). Terms must be as `linearFormOf` makes them (atoms
 * that do not decompose further, keys their `exprKey`s, no zero coefficients), and that is what
 * lets the simplifier know the form of what it built.
 */
export function formOfRebuilt(f: LinearForm): LinearForm | undefined {
  if (f.terms.length === 0) return undefined;
  // Positive terms, then negative ones, in two passes over the terms into one array.
  const terms: LinearTerm[] = [];
  let sorted = true;
  for (const t of f.terms) {
    if (t.atom.dtype !== f.dtype) return undefined;
    if (t.coef > 0) terms.push(t);
    else sorted = false;
  }
  if (!sorted) for (const t of f.terms) if (!(t.coef > 0)) terms.push(t);
  // `+ 0`: a zero constant is not written, and a form built from the expression has +0.
  return { dtype: f.dtype, terms, constant: f.constant + 0 };
}

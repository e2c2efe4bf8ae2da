/**
 * Subspace division for blockize (TVM's `SubspaceDivide`, in a narrower form): each binding of the
 * block is written as `outer * innerExtent + inner`, where `outer` uses only the loops above the
 * blockized loop and `inner` only the loops at or below it. A binding that uses one side only is
 * divided trivially; in a binding that mixes both, the inner loops must be the low digits of a
 * mixed radix (`i0 * 16 + i1`, `f // 4 * 16 + i1`). The predicate is
 * divided conjunct by conjunct; a conjunct over both sides makes the division fail.
 */
import {
  type BlockRealize,
  type DType,
  type For,
  type IterVar,
  type PrimExpr,
  type Range,
  type Var,
  add,
  and,
  boolImm,
  cast,
  intImm,
  linearFormOf,
  simplify,
  mul,
  substitute,
  usesVar,
} from "@tessera/ir";

export interface DividedBinding {
  /** The binding of the outer iterator (outer loops only) and its domain. */
  readonly outer: PrimExpr;
  readonly outerDom: Range;
  /** The binding of the inner iterator (inner loops only) and its extent. */
  readonly inner: PrimExpr;
  readonly innerExtent: PrimExpr;
}

export interface SubspaceDivision {
  readonly bindings: readonly DividedBinding[];
  readonly outerPredicate: PrimExpr;
  readonly innerPredicate: PrimExpr;
}

/**
 * Divides `realize`'s bindings between `outerLoops` and `innerLoops`; undefined when some binding
 * or predicate conjunct cannot be divided. Without `preserveUnitIters`, loops of extent 1 are
 * replaced by their minimum first (TVM's `simplify_trivial_iterators`).
 */
export function divideSubspace(
  realize: BlockRealize,
  outerLoops: readonly For[],
  innerLoops: readonly For[],
  preserveUnitIters: boolean,
): SubspaceDivision | undefined {
  const unit = new Map<Var, PrimExpr>();
  if (!preserveUnitIters) for (const l of [...outerLoops, ...innerLoops]) if (isConst(l.extent, 1)) unit.set(l.loopVar, l.min);
  const inner = new Set(innerLoops.map((l) => l.loopVar));
  const outer = new Set(outerLoops.map((l) => l.loopVar));
  const extents = new Map([...outerLoops, ...innerLoops].map((l) => [l.loopVar, l] as const));
  const bindings: DividedBinding[] = [];
  for (const [k, iv] of realize.block.iterVars.entries()) {
    const value = withUnitLoopsFixed(realize.iterValues[k]!, unit);
    const divided = divideBinding(value, iv, inner, outer, extents);
    if (divided === undefined) return undefined;
    bindings.push(divided);
  }
  const predicate = divisionOfPredicate(withUnitLoopsFixed(realize.predicate, unit), inner, outer);
  return predicate === undefined ? undefined : { bindings, ...predicate };
}

function withUnitLoopsFixed(e: PrimExpr, unit: ReadonlyMap<Var, PrimExpr>): PrimExpr {
  const out = substitute(e, unit);
  return out === e ? e : simplify(out);
}

function divideBinding(
  value: PrimExpr,
  iv: IterVar,
  inner: ReadonlySet<Var>,
  outer: ReadonlySet<Var>,
  loops: ReadonlyMap<Var, For>,
): DividedBinding | undefined {
  const usesInner = usesVar(value, (v) => inner.has(v));
  const usesOuter = usesVar(value, (v) => outer.has(v));
  const one = intImm(1, iv.dom.extent.dtype);
  const zero = intImm(0, iv.dom.extent.dtype);
  if (!usesInner) return { outer: value, outerDom: iv.dom, inner: zero, innerExtent: one };
  if (!usesOuter) return { outer: zero, outerDom: { min: zero, extent: one }, inner: value, innerExtent: iv.dom.extent };
  return divideMixedRadix(value, iv, inner, loops);
}

/**
 * `inner + innerExtent * outer`: the inner terms are inner loop variables whose coefficients form
 * a mixed radix from 1 (so they cover `[0, innerExtent)` exactly), every other term and the
 * constant use only outer loops with coefficients divisible by `innerExtent` (`f // 4 * 16 + i_1`
 * after a fuse). The outer iterator then ranges over the iterator's extent / innerExtent.
 */
function divideMixedRadix(value: PrimExpr, iv: IterVar, inner: ReadonlySet<Var>, loops: ReadonlyMap<Var, For>): DividedBinding | undefined {
  const form = linearFormOf(value);
  const digits: { atom: Var; coef: number; extent: number }[] = [];
  const outerTerms: { atom: PrimExpr; coef: number }[] = [];
  for (const t of form.terms) {
    if (!usesVar(t.atom, (v) => inner.has(v))) {
      outerTerms.push(t);
      continue;
    }
    const loop = t.atom.kind === "Var" ? loops.get(t.atom) : undefined;
    if (loop === undefined || t.atom.kind !== "Var" || !isConst(loop.min, 0) || loop.extent.kind !== "IntImm" || t.coef <= 0) return undefined;
    digits.push({ atom: t.atom, coef: t.coef, extent: loop.extent.value });
  }
  digits.sort((a, b) => a.coef - b.coef);
  let innerExtent = 1;
  for (const d of digits) {
    if (d.coef !== innerExtent) return undefined;
    innerExtent *= d.extent;
  }
  const extent = iv.dom.extent;
  if (!isConst(iv.dom.min, 0) || extent.kind !== "IntImm" || extent.value % innerExtent !== 0) return undefined;
  if (form.constant % innerExtent !== 0 || outerTerms.some((t) => t.coef % innerExtent !== 0)) return undefined;
  const dt = extent.dtype;
  return {
    outer: simplify(sumOf(outerTerms, innerExtent, form.constant, dt)),
    outerDom: { min: intImm(0, dt), extent: intImm(extent.value / innerExtent, dt) },
    inner: sumOf(digits, 1, 0, dt),
    innerExtent: intImm(innerExtent, dt),
  };
}

/** `sum(coef / scale * atom) + constant / scale`, highest coefficient first (as TVM prints `i0 * 4 + i1`). */
function sumOf(terms: readonly { atom: PrimExpr; coef: number }[], scale: number, constant: number, dt: DType): PrimExpr {
  const parts = [...terms].sort((a, b) => b.coef - a.coef).map((t) => scaled(t.atom, t.coef / scale, dt));
  if (constant !== 0 || parts.length === 0) parts.push(intImm(constant / scale, dt));
  return parts.reduce((a, b) => add(a, b));
}

function scaled(x: PrimExpr, coef: number, dt: DType): PrimExpr {
  const e = cast(dt, x);
  return coef === 1 ? e : mul(e, intImm(coef, dt));
}

function divisionOfPredicate(
  predicate: PrimExpr,
  inner: ReadonlySet<Var>,
  outer: ReadonlySet<Var>,
): { outerPredicate: PrimExpr; innerPredicate: PrimExpr } | undefined {
  const outerParts: PrimExpr[] = [];
  const innerParts: PrimExpr[] = [];
  for (const c of conjuncts(predicate)) {
    if (isConst(c, 1)) continue;
    const usesInner = usesVar(c, (v) => inner.has(v));
    const usesOuter = usesVar(c, (v) => outer.has(v));
    if (usesInner && usesOuter) return undefined;
    (usesInner ? innerParts : outerParts).push(c);
  }
  const join = (ps: PrimExpr[]) => (ps.length === 0 ? boolImm(true) : ps.reduce((a, b) => and(a, b)));
  return { outerPredicate: join(outerParts), innerPredicate: join(innerParts) };
}

function conjuncts(p: PrimExpr): PrimExpr[] {
  return p.kind === "Binary" && p.op === "and" ? [...conjuncts(p.a), ...conjuncts(p.b)] : [p];
}

function isConst(e: PrimExpr, value: number): boolean {
  return e.kind === "IntImm" && e.value === value;
}

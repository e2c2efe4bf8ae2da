/**
 * Can two accesses of one buffer name the same element? The barrier planner asks this for a
 * write and a read (or two accesses of different iterations or threads). Variables shared by the
 * two accesses have one value; variables for which `independentInB` holds (thread indices, loop
 * iterators summarised away, the variable of a loop-carried check) may take any value of their
 * domain in the second access, independently of the first.
 *
 * Two index lists are disjoint when some dimension is. One index `ea` against `eb`:
 *
 * 1. Their ranges do not intersect (e.g. version 0 of a double buffer against version 1).
 * 2. Some constant stride `S` splits both as `S·V + R` with `0 ≤ R < S` (the terms whose
 *    coefficient `S` divides, and the rest): then equal elements need `Va = Vb`. `Va − Vb` cannot
 *    be 0 when, after writing every `x mod N` as `x − N·⌊x/N⌋`, all its coefficients share a
 *    divisor `g` that does not divide its constant — or its range excludes 0. This is how the
 *    fetch of a multi-versioned tile (`(k + 1) % 2 · 512 + …`) is told apart from the compute's
 *    reads of the same iteration (`k % 2 · 512 + …`): `Va − Vb ≡ 1 (mod 2)`.
 *
 * A vector index `Ramp(base, stride, n)` stands for `base + stride·lane`, lane in `[0, n)`.
 */
import {
  type IntBound,
  type LinearForm,
  type LinearTerm,
  type PrimExpr,
  type Var,
  type VarBoundFacts,
  add,
  addForms,
  constIntBoundOf,
  floordiv,
  gcdInt,
  intImm,
  linearFormBound,
  linearFormOf,
  mul,
  scaleForm,
  usesVar,
  variable,
} from "@tessera/ir";

/**
 * What the disjointness checks of one pass share, by node identity: linear forms, the scalar
 * forms of vector indices, `x − N·⌊x/N⌋` expansions, and — while the variable domains stay
 * unchanged — bounds and the splits of an index by each stride. A caller comparing many index
 * pairs (the barrier planner) keeps one; each check otherwise starts afresh.
 */
export class DisjointnessCache {
  readonly forms = new Map<PrimExpr, LinearForm>();
  readonly expandedModulo = new Map<PrimExpr, LinearForm>();
  /** The candidate strides of each form met. */
  readonly strides = new Map<LinearForm, readonly number[]>();
  /** Bounds of the lane variables of the scalar forms. */
  readonly laneBounds = new Map<Var, IntBound>();
  /** Scalar forms of vector indices, one map per side of a check: the two sides' lanes are independent. */
  private readonly scalars: readonly [Map<PrimExpr, PrimExpr>, Map<PrimExpr, PrimExpr>] = [new Map(), new Map()];
  private factDependent: FactDependent | undefined;
  private factsVersion: number | undefined;

  /** The index as a scalar expression: `Ramp(base, stride, n)` → `base + stride·lane`, `lane ∈ [0, n)`. */
  scalar(e: PrimExpr, side: 0 | 1): PrimExpr {
    if (e.kind === "Broadcast") return e.value;
    if (e.kind !== "Ramp") return e;
    let s = this.scalars[side].get(e);
    if (s === undefined) {
      const lane = variable("lane", e.base.dtype);
      this.laneBounds.set(lane, { min: 0, max: e.lanes - 1 });
      s = add(e.base, mul(e.stride, lane));
      this.scalars[side].set(e, s);
    }
    return s;
  }

  /** What depends on the variable domains, emptied when `version` (of the facts) differs from the last call's. */
  atVersion(version: number): FactDependent {
    if (this.factDependent === undefined || version !== this.factsVersion) {
      this.factDependent = new FactDependent();
      this.factsVersion = version;
    }
    return this.factDependent;
  }
}

/** Bounds, and splits of indices by strides, under one state of the variable domains. */
class FactDependent {
  readonly bounds = new Map<PrimExpr, IntBound>();
  readonly splits = new Map<PrimExpr, Map<number, StrideSplit>>();
}

/** An index `stride·slot + rest`, and whether `0 ≤ rest < stride` holds. */
interface StrideSplit {
  readonly slot: LinearForm;
  readonly withinStride: boolean;
  /** The slot with its `mod` terms expanded, once asked for. */
  expanded?: LinearForm;
}

/** Facts with a version that changes whenever a bound does (so that bounds may be cached). */
export interface VersionedBoundFacts extends VarBoundFacts {
  readonly version: number;
}

export function provablyDisjoint(
  a: readonly PrimExpr[],
  b: readonly PrimExpr[],
  independentInB: (v: Var) => boolean,
  facts: VarBoundFacts | VersionedBoundFacts,
  cache: DisjointnessCache = new DisjointnessCache(),
): boolean {
  if (a.length !== b.length) return false;
  const derived = "version" in facts ? cache.atVersion(facts.version) : new FactDependent();
  const ctx: CheckContext = { independentInB, facts: new LaneFacts(facts, cache.laneBounds), cache, derived };
  return a.some((ea, d) => disjointIndex(cache.scalar(ea, 0), cache.scalar(b[d]!, 1), ctx));
}

interface CheckContext {
  readonly independentInB: (v: Var) => boolean;
  readonly facts: VarBoundFacts;
  readonly cache: DisjointnessCache;
  readonly derived: FactDependent;
}

function disjointIndex(ea: PrimExpr, eb: PrimExpr, ctx: CheckContext): boolean {
  const { facts } = ctx;
  const bounds = ctx.derived.bounds;
  if (!intersects(constIntBoundOf(ea, facts, bounds), constIntBoundOf(eb, facts, bounds))) return true;
  const fa = linearFormOf(ea, ctx.cache.forms);
  const fb = linearFormOf(eb, ctx.cache.forms);
  for (const stride of candidateStrides(fa, fb, ctx)) {
    const sa = strideSplit(ea, fa, stride, ctx);
    const sb = strideSplit(eb, fb, stride, ctx);
    if (!sa.withinStride || !sb.withinStride) continue;
    const difference = addForms(expandedSlot(sa, ctx), scaleForm(markIndependent(expandedSlot(sb, ctx), ctx.independentInB), -1));
    if (provablyNonZero(difference, ctx)) return true;
  }
  return false;
}

/** Coefficients of either index (≥ 2), largest first: the strides a version or tile term may have. */
function candidateStrides(fa: LinearForm, fb: LinearForm, ctx: CheckContext): number[] {
  return mergeDescending(ownStrides(fa, ctx), ownStrides(fb, ctx));
}

/** The distinct coefficients ≥ 2 of one form, largest first. */
function ownStrides(f: LinearForm, ctx: CheckContext): readonly number[] {
  let strides = ctx.cache.strides.get(f);
  if (strides === undefined) {
    strides = [...new Set(f.terms.map((t) => Math.abs(t.coef)).filter((c) => c >= 2))].sort((x, y) => y - x);
    ctx.cache.strides.set(f, strides);
  }
  return strides;
}

/** The union of two descending lists of distinct numbers, descending. */
function mergeDescending(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : -Infinity;
    const y = j < b.length ? b[j]! : -Infinity;
    if (x >= y) i++;
    if (y >= x) j++;
    out.push(Math.max(x, y));
  }
  return out;
}

/** The split of index `e` (of form `f`) by `stride`, worked out once per state of the domains. */
function strideSplit(e: PrimExpr, f: LinearForm, stride: number, ctx: CheckContext): StrideSplit {
  let byStride = ctx.derived.splits.get(e);
  if (byStride === undefined) {
    byStride = new Map();
    ctx.derived.splits.set(e, byStride);
  }
  let split = byStride.get(stride);
  if (split === undefined) {
    const { slot, rest } = splitByStride(f, stride);
    split = { slot, withinStride: withinStride(rest, stride, ctx) };
    byStride.set(stride, split);
  }
  return split;
}

function expandedSlot(split: StrideSplit, ctx: CheckContext): LinearForm {
  split.expanded ??= expandModulo(split.slot, ctx);
  return split.expanded;
}

/** `f = stride·slot + rest`: terms with a coefficient `stride` divides go to `slot`. */
function splitByStride(f: LinearForm, stride: number): { slot: LinearForm; rest: LinearForm } {
  const slotTerms: LinearTerm[] = [];
  const restTerms: LinearTerm[] = [];
  for (const t of f.terms) {
    if (t.coef % stride === 0) slotTerms.push({ ...t, coef: t.coef / stride });
    else restTerms.push(t);
  }
  const remainder = ((f.constant % stride) + stride) % stride;
  return {
    slot: { dtype: f.dtype, terms: slotTerms, constant: (f.constant - remainder) / stride },
    rest: { dtype: f.dtype, terms: restTerms, constant: remainder },
  };
}

function withinStride(rest: LinearForm, stride: number, ctx: CheckContext): boolean {
  const b = linearFormBound(rest, ctx.facts, ctx.derived.bounds);
  return b.min >= 0 && b.max < stride;
}

/** Every `x mod N` term written as `x − N·⌊x/N⌋` (an identity for floor division). */
function expandModulo(f: LinearForm, ctx: CheckContext): LinearForm {
  let out: LinearForm = { dtype: f.dtype, terms: [], constant: f.constant };
  for (const t of f.terms) {
    const atom = t.atom;
    if (atom.kind === "Binary" && atom.op === "floormod" && atom.b.kind === "IntImm" && atom.b.value > 0) {
      let expanded = ctx.cache.expandedModulo.get(atom);
      if (expanded === undefined) {
        const quotient = linearFormOf(mul(floordiv(atom.a, atom.b), intImm(-atom.b.value, atom.dtype)));
        expanded = addForms(linearFormOf(atom.a, ctx.cache.forms), quotient);
        ctx.cache.expandedModulo.set(atom, expanded);
      }
      out = addForms(out, scaleForm(expanded, t.coef));
    } else {
      out = addForms(out, { dtype: f.dtype, terms: [t], constant: 0 });
    }
  }
  return out;
}

/** Terms over independent variables get keys of their own, so they cannot cancel the first access's. */
function markIndependent(f: LinearForm, independent: (v: Var) => boolean): LinearForm {
  return { ...f, terms: f.terms.map((t) => (usesVar(t.atom, independent) ? { ...t, key: `b:${t.key}` } : t)) };
}

function provablyNonZero(f: LinearForm, ctx: CheckContext): boolean {
  const g = f.terms.reduce((acc, t) => gcdInt(acc, t.coef), 0);
  if (g === 0) return f.constant !== 0;
  if (f.constant % g !== 0) return true;
  return !intersects(linearFormBound(f, ctx.facts, ctx.derived.bounds), { min: 0, max: 0 });
}

function intersects(a: IntBound, b: IntBound): boolean {
  return a.min <= b.max && b.min <= a.max;
}

/** The facts, and the bounds of the lane variables that stand for the lanes of vector indices. */
class LaneFacts implements VarBoundFacts {
  constructor(
    private readonly outer: VarBoundFacts,
    private readonly lanes: ReadonlyMap<Var, IntBound>,
  ) {}

  boundOf(v: Var): IntBound | undefined {
    return this.lanes.get(v) ?? this.outer.boundOf(v);
  }
}

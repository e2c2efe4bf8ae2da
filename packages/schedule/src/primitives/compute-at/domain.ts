/**
 * Solving the moved block's iterator domains so that what it provides covers what is required
 * (TVM's `CalculateBlockVarDomain`): first an affine inverse of the provided point, else a
 * per-dimension pattern match of the provided index (`v`, `v*c`, `v//c`, `v%c`). Each iterator gets
 * a domain and a "bound" (what the buffer shape and the iterator's own range allow); the bound
 * turns into a `T.where` when the domain cannot be proven to stay inside it.
 */
import {
  type Analyzer,
  type Buffer,
  type IntervalSet,
  type IterVar,
  NEG_INF,
  POS_INF,
  type PrimExpr,
  type Range,
  type Var,
  add,
  detectIterMap,
  floordiv,
  intImm,
  intervalFromRange,
  intersectIntervals,
  isFiniteInterval,
  max,
  min,
  mul,
  sub,
  unionIntervals,
} from "@tessera/ir";
import { inverseAffineIterMap } from "../../analysis/inverse-iter-map.js";
import { BufferRegionPatternError } from "./errors.js";
import type { NDIntSet, Regions } from "./regions.js";

/** `undefined` is the empty set ("Nothing"). */
type MaybeSet = IntervalSet | undefined;

export interface BlockVarDomain {
  dom: MaybeSet;
  bound: MaybeSet;
}

function unionMaybe(a: MaybeSet, b: MaybeSet, analyzer: Analyzer): MaybeSet {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return unionIntervals(a, b, analyzer);
}

function unionInfo(into: BlockVarDomain, other: BlockVarDomain, analyzer: Analyzer): void {
  into.dom = unionMaybe(into.dom, other.dom, analyzer);
  into.bound = unionMaybe(into.bound, other.bound, analyzer);
}

function unionND(sets: readonly NDIntSet[], analyzer: Analyzer): NDIntSet {
  return sets.slice(1).reduce((acc, s) => acc.map((x, i) => unionIntervals(x, s[i]!, analyzer)), sets[0]!);
}

function endsEqual(a: IntervalSet["min"] | IntervalSet["max"], b: IntervalSet["min"] | IntervalSet["max"], analyzer: Analyzer): boolean {
  if (a.kind === "NegInf" || a.kind === "PosInf" || b.kind === "NegInf" || b.kind === "PosInf") return a.kind === b.kind;
  return analyzer.canProveEqual(a, b);
}

const sameSet = (a: IntervalSet, b: IntervalSet, analyzer: Analyzer) => endsEqual(a.min, b.min, analyzer) && endsEqual(a.max, b.max, analyzer);

/**
 * Simplified ends; an end whose value is fixed (e.g. a loop of extent 1) becomes that constant,
 * as TVM's simplifier replaces a variable bound to a single point.
 */
function simplifySet(s: IntervalSet, analyzer: Analyzer): IntervalSet {
  return {
    min: s.min.kind === "NegInf" ? s.min : foldFixed(analyzer.simplify(s.min), analyzer),
    max: s.max.kind === "PosInf" ? s.max : foldFixed(analyzer.simplify(s.max), analyzer),
  };
}

function foldFixed(e: PrimExpr, analyzer: Analyzer): PrimExpr {
  if (e.kind === "IntImm") return e;
  const b = analyzer.constIntBound(e);
  return b.min === b.max && Number.isFinite(b.min) ? intImm(b.min, e.dtype) : e;
}

const isSinglePoint = (s: IntervalSet, analyzer: Analyzer): s is { min: PrimExpr; max: PrimExpr } =>
  isFiniteInterval(s) && analyzer.canProveEqual(s.min, s.max);

/** Drops a bound implied by the domain, or folds it into the domain when that is exact. */
function simplifyInfo(info: BlockVarDomain, analyzer: Analyzer): void {
  if (info.dom === undefined) {
    if (info.bound !== undefined && isFiniteInterval(info.bound)) {
      info.dom = simplifySet(info.bound, analyzer);
      info.bound = undefined;
    }
    return;
  }
  info.dom = simplifySet(info.dom, analyzer);
  if (info.bound === undefined) return;
  info.bound = simplifySet(info.bound, analyzer);
  const meet = simplifySet(intersectIntervals(info.dom, info.bound, analyzer), analyzer);
  if (sameSet(info.dom, meet, analyzer)) {
    info.bound = undefined;
  } else if (sameSet(info.bound, meet, analyzer)) {
    info.dom = info.bound;
    info.bound = undefined;
  } else if (meet.min.kind === "IntImm" && meet.max.kind === "IntImm") {
    info.dom = meet;
    info.bound = undefined;
  }
}

/** Dimension `dim` of `buffer`: `max(shape - 1, 0)`. */
function dimMax(buffer: Buffer, dim: number, analyzer: Analyzer): PrimExpr {
  const extent = buffer.shape[dim]!;
  return analyzer.simplify(max(sub(extent, 1), intImm(0, extent.dtype)));
}

/** Affine path: the provided point is a bijective affine map of the block iterators. */
function updateAffine(
  buffer: Buffer,
  iterVars: readonly IterVar[],
  provided: NDIntSet,
  required: NDIntSet,
  analyzer: Analyzer,
  doms: Map<Var, BlockVarDomain>,
): boolean {
  if (!provided.every((s) => isSinglePoint(s, analyzer))) return false;
  if (!required.every((s) => isFiniteInterval(s))) return false;
  const points = provided.map((s) => (s as { min: PrimExpr }).min);
  const iterDoms = new Map<Var, Range>(iterVars.map((iv) => [iv.var, iv.dom]));
  const res = detectIterMap(points, iterDoms, undefined, { requireBijective: true });
  if (res.errors.length > 0) return false;
  const shapeBox = buffer.shape.map((_, d) => ({ min: intImm(0, buffer.shape[d]!.dtype) as PrimExpr, max: dimMax(buffer, d, analyzer) }));
  const domOf = inverseBox(res.indices, required as { min: PrimExpr; max: PrimExpr }[], analyzer);
  const boundOf = inverseBox(res.indices, shapeBox, analyzer);
  // TVM keeps unit iterators in the map (simplify_trivial_iterators = false): a unit iterator
  // that is a whole index takes the required range of that index, bounded by the buffer's.
  points.forEach((p, k) => {
    if (p.kind === "Var" && iterDoms.has(p) && !domOf.has(p)) {
      domOf.set(p, simplifySet(required[k]!, analyzer));
      boundOf.set(p, shapeBox[k]!);
    }
  });
  for (const [v, dom] of domOf) {
    const info = doms.get(v);
    if (info !== undefined) unionInfo(info, { dom, bound: boundOf.get(v) }, analyzer);
  }
  return true;
}

/** Maps the min and max corners of a box back to the iterators (TVM's interval `InverseAffineIterMap`). */
function inverseBox(
  sums: ReturnType<typeof detectIterMap>["indices"],
  box: readonly { min: PrimExpr; max: PrimExpr }[],
  analyzer: Analyzer,
): Map<Var, IntervalSet> {
  const lo = inverseAffineIterMap(
    sums,
    box.map((b) => b.min),
  );
  const hi = inverseAffineIterMap(
    sums,
    box.map((b) => b.max),
  );
  const out = new Map<Var, IntervalSet>();
  for (const [v, a] of lo) {
    const b = hi.get(v) ?? a;
    out.set(v, { min: analyzer.simplify(min(a, b)), max: analyzer.simplify(max(a, b)) });
  }
  return out;
}

/** Per-dimension pattern match of one provided index (TVM's `SolveBlockVarDomain`). */
function solveDim(primitive: string, provided: IntervalSet, required: IntervalSet, dimMaxExpr: PrimExpr, analyzer: Analyzer): [Var, BlockVarDomain] {
  if (!isFiniteInterval(provided)) throw new BufferRegionPatternError(primitive, "BufferRegion pattern match failed: unbounded region");
  const pMin = analyzer.simplify(provided.min);
  const pMax = analyzer.simplify(provided.max);
  const rMin = required.min.kind === "NegInf" ? undefined : analyzer.simplify(required.min);
  const rMax = required.max.kind === "PosInf" ? undefined : analyzer.simplify(required.max);
  const fail = (): never => {
    throw new BufferRegionPatternError(primitive, `BufferRegion pattern match failed: ${describeExpr(pMin)}`);
  };
  const interval = (lo: PrimExpr | undefined, hi: PrimExpr | undefined): IntervalSet => ({ min: lo ?? NEG_INF, max: hi ?? POS_INF });
  if (pMin.kind === "Binary" && pMin.op === "mul" && (pMin.a.kind === "Var" || pMin.b.kind === "Var")) {
    const [v, e] = pMin.a.kind === "Var" ? [pMin.a, pMin.b] : [pMin.b as Var, pMin.a];
    return [
      v,
      {
        dom: interval(rMin && floordiv(rMin, e), rMax && floordiv(rMax, e)),
        bound: interval(intImm(0, v.dtype), floordiv(dimMaxExpr, e)),
      },
    ];
  }
  if (!analyzer.canProveEqual(pMin, pMax)) return fail();
  if (pMin.kind === "Binary" && pMin.op === "sub" && pMin.a.kind === "IntImm") {
    // A reversed index `c - x` (TVM: an iterator of scale -1): x covers the mirrored region.
    const c = pMin.a;
    const x = pMin.b;
    const mirrored = interval(rMax && analyzer.simplify(sub(c, rMax)), rMin && analyzer.simplify(sub(c, rMin)));
    if (x.kind === "Var") return [x, { dom: mirrored, bound: interval(analyzer.simplify(sub(c, dimMaxExpr)), c) }];
    const [v, info] = solveDim(primitive, { min: x, max: x }, mirrored, dimMaxExpr, analyzer);
    return [v, { dom: info.dom, bound: undefined }];
  }
  if (pMin.kind === "Var") {
    return [pMin, { dom: interval(rMin, rMax), bound: interval(intImm(0, pMin.dtype), dimMaxExpr) }];
  }
  if (pMin.kind === "Binary" && pMin.op === "floordiv" && analyzer.canProveGreaterEqual(pMin.b, 1)) {
    const [x, f] = [pMin.a, pMin.b];
    const lo = rMin && mul(rMin, f);
    const hi = rMax && analyzer.simplify(sub(add(mul(rMax, f), f), 1));
    if (x.kind === "Var") {
      return [x, { dom: interval(lo, hi), bound: interval(intImm(0, x.dtype), analyzer.simplify(sub(add(mul(dimMaxExpr, f), f), 1))) }];
    }
    return solveDim(primitive, { min: x, max: x }, interval(lo, hi), dimMaxExpr, analyzer);
  }
  if (pMin.kind === "Binary" && pMin.op === "floormod") {
    const [x, f] = [pMin.a, pMin.b];
    if (x.kind === "Var") return [x, { dom: undefined, bound: undefined }];
    if (analyzer.canProveGreaterEqual(x, 1) && analyzer.canProveGreaterEqual(f, 1) && rMin !== undefined && analyzer.canProveGreaterEqual(rMin, 0)) {
      return solveDim(primitive, { min: x, max: x }, { min: rMin, max: POS_INF }, dimMaxExpr, analyzer);
    }
  }
  return fail();
}

function describeExpr(e: PrimExpr): string {
  return e.kind === "Var" ? e.name : e.kind === "IntImm" ? String(e.value) : e.kind;
}

function updateDimwise(primitive: string, buffer: Buffer, provided: NDIntSet, required: NDIntSet, analyzer: Analyzer, doms: Map<Var, BlockVarDomain>): void {
  provided.forEach((p, d) => {
    const r = required[d]!;
    if (isSinglePoint(p, analyzer) && p.min.kind === "IntImm") {
      if (!(isSinglePoint(r, analyzer) && analyzer.canProveEqual(p.min, r.min))) {
        throw new BufferRegionPatternError(primitive, `the required region of ${buffer.name} in dimension ${d} is not the constant the block provides`);
      }
      return;
    }
    const [v, info] = solveDim(primitive, p, r, dimMax(buffer, d, analyzer), analyzer);
    const into = doms.get(v);
    if (into !== undefined) unionInfo(into, info, analyzer);
    else if (!sameSet(p, r, analyzer)) {
      throw new BufferRegionPatternError(
        primitive,
        `the required region of ${buffer.name} in dimension ${d} depends on a variable that is not a block iterator`,
      );
    }
  });
}

export function calculateBlockVarDomain(
  primitive: string,
  iterVars: readonly IterVar[],
  regions: Regions,
  analyzer: Analyzer,
): { dom: IntervalSet; bound: MaybeSet }[] {
  const doms = new Map<Var, BlockVarDomain>(iterVars.map((iv) => [iv.var, { dom: undefined, bound: undefined }]));
  for (const [buffer, provList] of regions.provided) {
    const reqList = regions.required.get(buffer);
    if (reqList === undefined || reqList.length === 0) continue;
    const required = unionND(reqList, analyzer);
    const provided = unionND(provList, analyzer);
    if (!updateAffine(buffer, iterVars, provided, required, analyzer, doms)) {
      updateDimwise(primitive, buffer, provided, required, analyzer, doms);
    }
  }
  return iterVars.map((iv) => {
    const info = doms.get(iv.var)!;
    const own = intervalFromRange(iv.dom, analyzer);
    info.bound = info.bound === undefined ? own : intersectIntervals(info.bound, own, analyzer);
    simplifyInfo(info, analyzer);
    if (info.dom === undefined) throw new BufferRegionPatternError(primitive, `cannot determine the domain of block iterator ${iv.var.name}`);
    return { dom: info.dom, bound: info.bound };
  });
}

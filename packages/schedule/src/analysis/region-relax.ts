/**
 * Relaxing a block's buffer region over loops (TVM's `RelaxBufferRegion` /
 * `AnalyzeRegionUpperBound`): the block's iterators are replaced by their bindings, and the loops
 * between the block and a given ancestor range over their domains, while loops at or above that
 * ancestor stay symbolic. Also the region-cover check cache_read requires of every reader.
 */
import {
  Analyzer,
  type Buffer,
  type BufferRegion,
  type IntervalSet,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  add,
  and,
  forEachStmt,
  or,
  sameExprStructure,
  evalSet,
  intImm,
  intervalFromRange,
  max,
  min,
  sub,
  substitute,
  usesVar,
} from "@tessera/ir";
import type { BlockScope } from "./scope.js";
import type { BlockEntry, LoopEntry, NodeEntry, TreeIndex } from "../state/tree-index.js";

/** The loops strictly between `blk` and its ancestor `top` (all loops above `blk` in its scope when `top` is a block). */
export function loopsBelow(index: TreeIndex, blk: BlockEntry, top: NodeEntry): LoopEntry[] {
  return index.loopsAbove(blk).filter((l) => top.kind === "block" || index.isAncestor(top, l));
}

/** The loops that stay symbolic when relaxing under `top`: `top` itself (if a loop) and the loops above it. */
function outerLoops(index: TreeIndex, top: NodeEntry): LoopEntry[] {
  const out: LoopEntry[] = [];
  for (let p: NodeEntry | undefined = top; p !== undefined && p.kind === "loop"; p = p.parent) out.push(p);
  return out;
}

/** An analyzer that knows the domains of the loops at and above `top` and of the iterators of the blocks around it. */
export function analyzerAt(index: TreeIndex, top: NodeEntry): Analyzer {
  const analyzer = new Analyzer();
  for (const l of outerLoops(index, top)) analyzer.bind(l.node.loopVar, { min: l.node.min, extent: l.node.extent });
  // The iterators of the enclosing blocks (e.g. a scope block's i in i * 16 + ax0) range over
  // their domains: without them the bounds of a cache copy under a block are not provable.
  for (let p: NodeEntry | undefined = top; p !== undefined; p = p.parent) {
    if (p.kind === "block") for (const iv of p.node.iterVars) analyzer.bind(iv.var, iv.dom);
  }
  return analyzer;
}

/** The domains (symbolic ones included) of the loops at and above `top` and of the iterators of the blocks around it. */
export function domainsAround(index: TreeIndex, top: NodeEntry): Map<Var, IntervalSet> {
  const analyzer = new Analyzer();
  const doms = new Map<Var, IntervalSet>();
  for (let p: NodeEntry | undefined = top; p !== undefined; p = p.parent) {
    if (p.kind === "loop") doms.set(p.node.loopVar, intervalFromRange({ min: p.node.min, extent: p.node.extent }, analyzer));
    else for (const iv of p.node.iterVars) doms.set(iv.var, intervalFromRange(iv.dom, analyzer));
  }
  return doms;
}

/**
 * Each dimension of `region` (in `blk`'s iterators) as an interval, relaxed over the loops between
 * `blk` and `top`, under the block's predicate and `extraPredicate` (in its iterators) as TVM's
 * `AnalyzeRegionUpperBound` does: a conjunct `loop < c` (or `>=`, `<=`, `>`) narrows that loop's
 * domain, and a conjunct `e < c` bounds a point access whose index is `e`.
 */
export function relaxRegionIntervals(
  index: TreeIndex,
  blk: BlockEntry,
  region: BufferRegion,
  top: NodeEntry,
  analyzer: Analyzer,
  extraPredicate?: PrimExpr,
): IntervalSet[] {
  const bindings = new Map<Var, PrimExpr>();
  blk.node.iterVars.forEach((iv, i) => bindings.set(iv.var, blk.realize.iterValues[i]!));
  const dom = new Map<Var, IntervalSet>();
  for (const l of loopsBelow(index, blk, top)) dom.set(l.node.loopVar, intervalFromRange({ min: l.node.min, extent: l.node.extent }, analyzer));
  const predicate = extraPredicate === undefined ? blk.realize.predicate : and(blk.realize.predicate, substitute(extraPredicate, bindings));
  const bounds = upperBounds(predicate, analyzer);
  const relaxed = (e: PrimExpr | undefined) => e !== undefined && usesVar(e, (v) => dom.has(v));
  for (const b of bounds) {
    const d = b.lhs.kind === "Var" ? dom.get(b.lhs) : undefined;
    if (b.lhs.kind !== "Var" || d === undefined || relaxed(b.upper) || relaxed(b.lower)) continue;
    if (b.upper !== undefined && d.max.kind !== "PosInf") dom.set(b.lhs, { min: d.min, max: analyzer.simplify(min(d.max as PrimExpr, b.upper)) });
    const now = dom.get(b.lhs)!;
    if (b.lower !== undefined && now.min.kind !== "NegInf") dom.set(b.lhs, { min: analyzer.simplify(max(now.min as PrimExpr, b.lower)), max: now.max });
  }
  return region.region.map((r) => {
    const index0 = substitute(r.min, bindings);
    const lo = evalSet(index0, dom, analyzer);
    const last = evalSet(substitute(sub(add(r.min, r.extent), 1), bindings), dom, analyzer);
    // The predicate bounds the index itself, however its sum is associated (i*64 + (t*4 + u) and i*64 + t*4 + u).
    const sameIndex = (e: PrimExpr) => sameExprStructure(e, index0) || analyzer.canProveEqual(e, index0);
    const pointBound = isOne(r.extent) ? bounds.find((b) => b.lhs.kind !== "Var" && b.upper !== undefined && !relaxed(b.upper) && sameIndex(b.lhs)) : undefined;
    const hi = pointBound !== undefined && last.max.kind !== "PosInf" ? analyzer.simplify(min(last.max as PrimExpr, pointBound.upper!)) : last.max;
    return { min: lo.min, max: hi };
  });
}

interface PredicateBound {
  readonly lhs: PrimExpr;
  /** Inclusive bounds. */
  readonly upper?: PrimExpr;
  readonly lower?: PrimExpr;
}

/** The conjuncts of `predicate` that bound an expression by a constant-free-of-it side (a disjunction bounds nothing). */
function upperBounds(predicate: PrimExpr, analyzer: Analyzer): PredicateBound[] {
  const out: PredicateBound[] = [];
  const visit = (p: PrimExpr): void => {
    if (p.kind !== "Binary") return;
    const one = (e: PrimExpr) => intImm(1, e.dtype);
    switch (p.op) {
      case "and":
        visit(p.a);
        visit(p.b);
        return;
      case "lt":
        return void out.push({ lhs: p.a, upper: analyzer.simplify(sub(p.b, one(p.b))) });
      case "le":
        return void out.push({ lhs: p.a, upper: p.b });
      case "gt":
        return void out.push({ lhs: p.b, upper: analyzer.simplify(sub(p.a, one(p.a))) }, { lhs: p.a, lower: analyzer.simplify(add(p.b, one(p.b))) });
      case "ge":
        return void out.push({ lhs: p.b, upper: p.a }, { lhs: p.a, lower: p.b });
      default:
        return;
    }
  };
  visit(predicate);
  return out;
}

const isOne = (e: PrimExpr): boolean => e.kind === "IntImm" && e.value === 1;

/**
 * TVM's `CollectNestedBlockPredicates`: the predicates of the blocks nested in `body` that read
 * (or write) `buffer`, in the enclosing block's iterators, or-ed (sibling blocks are alternative
 * accesses, so the region must cover their union). `undefined` when no nested block accesses it.
 */
export function nestedBlockPredicate(body: Stmt, buffer: Buffer, access: "read" | "write"): PrimExpr | undefined {
  let result: PrimExpr | undefined;
  forEachStmt(body, (s) => {
    if (s.kind !== "BlockRealize") return;
    const regions = access === "read" ? s.block.reads : s.block.writes;
    if (!regions.some((r) => r.buffer === buffer)) return;
    const bindings = new Map<Var, PrimExpr>(s.block.iterVars.map((iv, i) => [iv.var, s.iterValues[i]!] as const));
    const pred = substitute(s.predicate, bindings);
    result = result === undefined ? pred : or(result, pred);
  });
  return result;
}

/**
 * The relaxed region as ranges. Like TVM's `CoverRange(0, shape)`, an unbounded end falls back to
 * the buffer's extent; a finite end is clamped to the buffer only where that is provable.
 */
export function relaxRegion(index: TreeIndex, blk: BlockEntry, region: BufferRegion, top: NodeEntry, extraPredicate?: PrimExpr): BufferRegion {
  const analyzer = analyzerAt(index, top);
  const sets = relaxRegionIntervals(index, blk, region, top, analyzer, extraPredicate);
  return { buffer: region.buffer, region: sets.map((s, d) => coverRange(s, region.buffer, d, analyzer)) };
}

function coverRange(s: IntervalSet, buffer: Buffer, dim: number, analyzer: Analyzer): Range {
  const extent = buffer.shape[dim]!;
  const zero = intImm(0, extent.dtype);
  const last = analyzer.simplify(sub(extent, 1));
  let lo = s.min.kind === "NegInf" ? zero : s.min;
  let hi = s.max.kind === "PosInf" ? last : s.max;
  if (analyzer.canProveLess(lo, 0)) lo = zero;
  if (analyzer.canProveGreater(hi, last)) hi = last;
  lo = analyzer.simplify(lo);
  return { min: lo, extent: analyzer.simplify(add(sub(hi, lo), 1)) };
}

/**
 * TVM's `region_cover` for one buffer: every child block of the scope that reads `buffer` reads
 * only what its producers in the scope write, both relaxed up to their lowest common ancestor.
 * Returns the first reader whose coverage cannot be proven (undefined when all are covered).
 */
export function firstUncoveredReader(scope: BlockScope, buffer: Buffer): BlockEntry | undefined {
  const index = scope.index;
  for (const reader of scope.children) {
    const read = reader.node.reads.find((r) => r.buffer === buffer);
    if (read === undefined) continue;
    const producers = scope.producersOf(reader).filter((p) => p.node.writes.some((w) => w.buffer === buffer));
    if (producers.length === 0) continue;
    const lca = index.lowestCommonAncestor([reader, ...producers]);
    if (lca === undefined) continue;
    const analyzer = analyzerAt(index, lca);
    const need = relaxRegionIntervals(index, reader, read, lca, analyzer);
    const have = producers.map((p) => relaxRegionIntervals(index, p, p.node.writes.find((w) => w.buffer === buffer)!, lca, analyzer));
    // The producers' regions are joined by their hull (TVM takes a lower bound of their union).
    const covered = need.every((n, d) => {
      const lows = have.map((h) => h[d]!.min);
      const highs = have.map((h) => h[d]!.max);
      if (n.min.kind === "NegInf" || n.max.kind === "PosInf") return false;
      const lo = lows.every((x) => x.kind !== "NegInf") ? lows.reduce((a, b) => analyzer.simplify(min(a as PrimExpr, b as PrimExpr))) : undefined;
      const hi = highs.every((x) => x.kind !== "PosInf") ? highs.reduce((a, b) => analyzer.simplify(max(a as PrimExpr, b as PrimExpr))) : undefined;
      return lo !== undefined && hi !== undefined && analyzer.canProveLessEqual(lo as PrimExpr, n.min) && analyzer.canProveLessEqual(n.max, hi as PrimExpr);
    });
    if (!covered) return reader;
  }
  return undefined;
}

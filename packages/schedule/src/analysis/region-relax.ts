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
  type Var,
  add,
  evalSet,
  intImm,
  intervalFromRange,
  max,
  min,
  sub,
  substitute,
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

/** An analyzer that knows the domains of the loops at and above `top`. */
export function analyzerAt(index: TreeIndex, top: NodeEntry): Analyzer {
  const analyzer = new Analyzer();
  for (const l of outerLoops(index, top)) analyzer.bind(l.node.loopVar, { min: l.node.min, extent: l.node.extent });
  return analyzer;
}

/** Each dimension of `region` (in `blk`'s iterators) as an interval, relaxed over the loops between `blk` and `top`. */
export function relaxRegionIntervals(index: TreeIndex, blk: BlockEntry, region: BufferRegion, top: NodeEntry, analyzer: Analyzer): IntervalSet[] {
  const bindings = new Map<Var, PrimExpr>();
  blk.node.iterVars.forEach((iv, i) => bindings.set(iv.var, blk.realize.iterValues[i]!));
  const dom = new Map<Var, IntervalSet>();
  for (const l of loopsBelow(index, blk, top)) dom.set(l.node.loopVar, intervalFromRange({ min: l.node.min, extent: l.node.extent }, analyzer));
  return region.region.map((r) => {
    const lo = evalSet(substitute(r.min, bindings), dom, analyzer);
    const last = evalSet(substitute(sub(add(r.min, r.extent), 1), bindings), dom, analyzer);
    return { min: lo.min, max: last.max };
  });
}

/**
 * The relaxed region as ranges. Like TVM's `CoverRange(0, shape)`, an unbounded end falls back to
 * the buffer's extent; a finite end is clamped to the buffer only where that is provable.
 */
export function relaxRegion(index: TreeIndex, blk: BlockEntry, region: BufferRegion, top: NodeEntry): BufferRegion {
  const analyzer = analyzerAt(index, top);
  const sets = relaxRegionIntervals(index, blk, region, top, analyzer);
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

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
import { nameGuardedSum, rowGuardBounds } from "./guard-substitution.js";
import { proveAtMost } from "./prove-at-most.js";
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
export const relaxRegionIntervals = (...args: Parameters<typeof relaxUnderPredicate>): IntervalSet[] => relaxUnderPredicate(...args).intervals;

interface RelaxedRegion {
  readonly intervals: IntervalSet[];
  /** Whether every conjunct of the predicate was turned into a bound (else the intervals may hold points the block skips). */
  readonly predicateExact: boolean;
}

function relaxUnderPredicate(
  index: TreeIndex,
  blk: BlockEntry,
  region: BufferRegion,
  top: NodeEntry,
  analyzer: Analyzer,
  extraPredicate?: PrimExpr,
): RelaxedRegion {
  const bindings = new Map<Var, PrimExpr>();
  blk.node.iterVars.forEach((iv, i) => bindings.set(iv.var, blk.realize.iterValues[i]!));
  const dom = new Map<Var, IntervalSet>();
  for (const l of loopsBelow(index, blk, top)) dom.set(l.node.loopVar, intervalFromRange({ min: l.node.min, extent: l.node.extent }, analyzer));
  const predicate = extraPredicate === undefined ? blk.realize.predicate : and(blk.realize.predicate, substitute(extraPredicate, bindings));
  const { bounds, pending } = predicateBounds(predicate, analyzer);
  const relaxed = (e: PrimExpr | undefined) => e !== undefined && usesVar(e, (v) => dom.has(v));
  let inner: Analyzer | undefined;
  const withLoops = (): Analyzer => (inner ??= analyzerWithLoops(index, blk, top));
  const constRange = (v: Var) => {
    const d = dom.get(v);
    return d?.min.kind === "IntImm" && d.max.kind === "IntImm" ? { min: d.min.value, max: d.max.value } : undefined;
  };
  // A guard on a fused index whose two loops the block's indices use apart ((t * 16 + u < 64), t and u).
  const narrowByRowGuard = (sum: PrimExpr, b: PredicateBound): boolean => {
    const upper = b.upper === undefined ? undefined : analyzer.simplify(b.upper);
    const cuts = upper?.kind === "IntImm" ? rowGuardBounds(sum, upper.value, constRange) : undefined;
    for (const cut of cuts ?? []) {
      const d = dom.get(cut.loop)!;
      dom.set(cut.loop, { min: d.min, max: analyzer.simplify(min(d.max as PrimExpr, intImm(cut.upper, cut.loop.dtype))) });
    }
    return cuts !== undefined;
  };
  for (const b of bounds) {
    // A guard on a fused index of loops that run once is a guard on the one that does not (t * 1024 + u < 512).
    const loop = b.lhs.kind === "Var" ? b.lhs : relaxed(b.lhs) ? withLoops().simplify(b.lhs) : b.lhs;
    if (loop.kind !== "Var" && narrowByRowGuard(loop, b)) pending.delete(b.conjunct);
    const d = loop.kind === "Var" ? dom.get(loop) : undefined;
    if (loop.kind !== "Var" || d === undefined || relaxed(b.upper) || relaxed(b.lower)) continue;
    if (b.upper !== undefined && d.max.kind !== "PosInf") {
      dom.set(loop, { min: d.min, max: analyzer.simplify(min(d.max as PrimExpr, b.upper)) });
      pending.delete(b.conjunct);
    }
    const now = dom.get(loop)!;
    if (b.lower !== undefined && now.min.kind !== "NegInf") {
      dom.set(loop, { min: analyzer.simplify(max(now.min as PrimExpr, b.lower)), max: now.max });
      pending.delete(b.conjunct);
    }
  }
  const firsts = region.region.map((r) => substitute(r.min, bindings));
  let ends = [...firsts, ...region.region.map((r) => substitute(sub(add(r.min, r.extent), 1), bindings))];
  for (const b of bounds) {
    if (b.lhs.kind === "Var" || b.upper === undefined || relaxed(b.upper) || !relaxed(b.lhs)) continue;
    // The sum as written, or without the loops that run once ((t * 64 + u) * 4 + v with t < 1).
    const sum = [b.lhs, withLoops().simplify(b.lhs)].find((e) => nameGuardedSum(ends, e, (v) => dom.has(v)) !== undefined);
    const named = sum === undefined ? undefined : nameGuardedSum(ends, sum, (v) => dom.has(v));
    const range = sum === undefined ? undefined : evalSet(sum, dom, analyzer);
    if (named === undefined || range === undefined || range.max.kind === "PosInf") continue;
    dom.set(named.name, { min: range.min, max: analyzer.simplify(min(range.max as PrimExpr, b.upper)) });
    ends = named.indices;
    pending.delete(b.conjunct);
  }
  const intervals = region.region.map((r, d) => {
    const index0 = firsts[d]!;
    const lo = evalSet(ends[d]!, dom, analyzer);
    const last = evalSet(ends[region.region.length + d]!, dom, analyzer);
    // The predicate bounds the index itself, however its sum is associated (i*64 + (t*4 + u) and
    // i*64 + t*4 + u) and wherever the relaxed loops' ranges make them equal ((t*8 + u)//8 and t, u < 8).
    const sameIndex = (e: PrimExpr) => sameExprStructure(e, index0) || analyzer.canProveEqual(e, index0) || withLoops().canProveEqual(e, index0);
    const pointBound = isOne(r.extent) ? bounds.find((b) => b.lhs.kind !== "Var" && b.upper !== undefined && !relaxed(b.upper) && sameIndex(b.lhs)) : undefined;
    if (pointBound === undefined || last.max.kind === "PosInf") return { min: lo.min, max: last.max };
    pending.delete(pointBound.conjunct);
    return { min: lo.min, max: analyzer.simplify(min(last.max as PrimExpr, pointBound.upper!)) };
  });
  return { intervals, predicateExact: pending.size === 0 };
}

/** An analyzer that also knows the domains of the loops between `blk` and `top`. */
function analyzerWithLoops(index: TreeIndex, blk: BlockEntry, top: NodeEntry): Analyzer {
  const analyzer = analyzerAt(index, top);
  for (const l of loopsBelow(index, blk, top)) {
    // A loop of one iteration is its start (the simplifier then folds (t + u) % 128 with u = 0).
    analyzer.bind(l.node.loopVar, isOne(l.node.extent) ? l.node.min : { min: l.node.min, extent: l.node.extent }, true);
  }
  return analyzer;
}

interface PredicateBound {
  readonly lhs: PrimExpr;
  /** Inclusive bounds. */
  readonly upper?: PrimExpr;
  readonly lower?: PrimExpr;
  /** Which conjunct of the predicate it comes from. */
  readonly conjunct: number;
}

/**
 * The conjuncts of `predicate` that bound an expression by a side free of it (a disjunction bounds
 * nothing), and the conjuncts still to be accounted for: every one that is not the constant true.
 */
function predicateBounds(predicate: PrimExpr, analyzer: Analyzer): { bounds: PredicateBound[]; pending: Set<number> } {
  const bounds: PredicateBound[] = [];
  const pending = new Set<number>();
  let conjunct = 0;
  const visit = (p: PrimExpr): void => {
    if (p.kind === "Binary" && p.op === "and") {
      visit(p.a);
      visit(p.b);
      return;
    }
    const c = conjunct++;
    if (p.kind === "IntImm" && p.value !== 0) return;
    pending.add(c);
    if (p.kind !== "Binary") return;
    const one = (e: PrimExpr) => intImm(1, e.dtype);
    switch (p.op) {
      case "lt":
        return void bounds.push({ lhs: p.a, upper: analyzer.simplify(sub(p.b, one(p.b))), conjunct: c });
      case "le":
        return void bounds.push({ lhs: p.a, upper: p.b, conjunct: c });
      case "gt":
        return void bounds.push(
          { lhs: p.b, upper: analyzer.simplify(sub(p.a, one(p.a))), conjunct: c },
          { lhs: p.a, lower: analyzer.simplify(add(p.b, one(p.b))), conjunct: c },
        );
      case "ge":
        return void bounds.push({ lhs: p.b, upper: p.a, conjunct: c }, { lhs: p.a, lower: p.b, conjunct: c });
      default:
        return;
    }
  };
  visit(predicate);
  return { bounds, pending };
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
    // A producer's hull stands for what it writes only when its whole predicate became bounds.
    const written = producers.map((p) => relaxUnderPredicate(index, p, p.node.writes.find((w) => w.buffer === buffer)!, lca, analyzer));
    if (written.some((w) => !w.predicateExact)) return reader;
    const have = written.map((w) => w.intervals);
    // The producers' regions are joined by their hull (TVM takes a lower bound of their union);
    // both sides are clipped to the buffer, as TVM's `ProducerCoversConsumer` does.
    const covered = need.every((n, d) => {
      const lows = have.map((h) => h[d]!.min);
      const highs = have.map((h) => h[d]!.max);
      if (n.min.kind === "NegInf" || n.max.kind === "PosInf") return false;
      if (lows.some((x) => x.kind === "NegInf") || highs.some((x) => x.kind === "PosInf")) return false;
      const [first, last] = [intImm(0, read.buffer.shape[d]!.dtype), sub(read.buffer.shape[d]!, 1)];
      const lo = lows.reduce((a, b) => min(a as PrimExpr, b as PrimExpr)) as PrimExpr;
      const hi = highs.reduce((a, b) => max(a as PrimExpr, b as PrimExpr)) as PrimExpr;
      // Unclipped first: where tiles divide the buffer that is the one proof it takes.
      if (proveAtMost(analyzer, lo, n.min) && proveAtMost(analyzer, n.max, hi)) return true;
      return proveAtMost(analyzer, max(lo, first), max(n.min, first)) && proveAtMost(analyzer, min(n.max, last), min(hi, last));
    });
    if (!covered) return reader;
  }
  return undefined;
}

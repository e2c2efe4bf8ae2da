/**
 * TVM's stage-pipeline property of a scope: only schedulable statements (loops and blocks) between
 * the scope root and its child blocks, no write-after-read dependency, and region cover — every
 * region a child block reads of a buffer produced in the scope is covered by what its producers
 * write (both relaxed over the loops up to the scope).
 */
import {
  Analyzer,
  type Buffer,
  type IntervalSet,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  evalSet,
  intervalFromRange,
  isFiniteInterval,
  substitute,
  unionIntervals,
  UNBOUNDED_INTERVAL,
  add,
  intImm,
  max,
  min,
  sub,
} from "@tessera/ir";
import { LoopNestMemo } from "../state/loop-nest-memo.js";
import type { BlockEntry, TreeIndex } from "../state/tree-index.js";
import type { BlockScope } from "./scope.js";

export function isStagePipeline(scope: BlockScope): boolean {
  if (scope.deps.some((d) => d.kind === "WAR")) return false;
  if (scope.root !== undefined && !onlySchedulable(scope.root.node.body)) return false;
  return regionCoverHolds(scope);
}

function onlySchedulable(s: Stmt): boolean {
  switch (s.kind) {
    case "SeqStmt":
      return s.seq.every(onlySchedulable);
    case "For":
      return onlySchedulable(s.body);
    case "BlockRealize":
      return true;
    default:
      return false;
  }
}

/** The region of `region` that `blk` touches over all iterations of its loops up to the scope. */
export function relaxedRegion(index: TreeIndex, blk: BlockEntry, region: readonly Range[], analyzer: Analyzer): IntervalSet[] {
  const bindings = new Map<Var, PrimExpr>();
  blk.node.iterVars.forEach((iv, k) => bindings.set(iv.var, blk.realize.iterValues[k]!));
  const doms = new Map<Var, IntervalSet>();
  for (const l of index.loopsAbove(blk)) doms.set(l.node.loopVar, intervalFromRange({ min: l.node.min, extent: l.node.extent }, analyzer));
  return region.map((r) => {
    const minSet = evalSet(substitute(r.min, bindings), doms, analyzer);
    const extentSet = evalSet(substitute(r.extent, bindings), doms, analyzer);
    if (!isFiniteInterval(minSet) || !isFiniteInterval(extentSet)) return UNBOUNDED_INTERVAL;
    return { min: minSet.min, max: analyzer.simplify(sub(add(minSet.max, extentSet.max), 1)) };
  });
}

/**
 * Relaxed regions by block realize, region and loop bounds (see LoopNestMemo): a region is relaxed
 * without facts, so it depends on nothing else. Stage-pipeline checks run before most primitives
 * and see the nests the previous primitive left alone again.
 */
export const relaxedRegionMemo = new LoopNestMemo<readonly Range[], readonly IntervalSet[]>(16);

/** `relaxedRegion` with a fact-free analyzer, remembered across schedule states. */
export function relaxedRegionWithoutFacts(index: TreeIndex, blk: BlockEntry, region: readonly Range[], analyzer: Analyzer): readonly IntervalSet[] {
  const loops = index.loopsAbove(blk).map((l) => l.node);
  return relaxedRegionMemo.get(blk.realize, loops, region, () => relaxedRegion(index, blk, region, analyzer));
}

function regionCoverHolds(scope: BlockScope): boolean {
  // No facts: relaxed regions are then the same in every state (see relaxedRegionWithoutFacts).
  const analyzer = new Analyzer();
  const produced = new Map<Buffer, readonly IntervalSet[]>();
  for (const blk of scope.children) {
    // Reads are checked against everything produced before the block.
    for (const r of blk.node.reads) {
      const provided = produced.get(r.buffer);
      if (provided === undefined) continue;
      const required = relaxedRegionWithoutFacts(scope.index, blk, r.region, analyzer);
      // As TVM's ProducerCoversConsumer: only the part inside the buffer must be produced.
      const inside = required.map((q, k) => clampToExtent(q, r.buffer.shape[k]!, analyzer));
      if (!covers(provided, inside, analyzer)) return false;
    }
    for (const w of blk.node.writes) {
      const region = relaxedRegionWithoutFacts(scope.index, blk, w.region, analyzer);
      const before = produced.get(w.buffer);
      produced.set(w.buffer, before === undefined ? region : before.map((b, k) => unionIntervals(b, region[k]!, analyzer)));
    }
  }
  return true;
}

function clampToExtent(q: IntervalSet, extent: PrimExpr, analyzer: Analyzer): IntervalSet {
  if (!isFiniteInterval(q)) return q;
  const zero = intImm(0, extent.dtype);
  return { min: analyzer.simplify(max(q.min, zero)), max: analyzer.simplify(min(q.max, sub(extent, 1))) };
}

/** Only a provable gap counts as "not covered" (symbolic bounds are given the benefit of the doubt). */
function covers(provided: readonly IntervalSet[], required: readonly IntervalSet[], analyzer: Analyzer): boolean {
  return provided.every((p, k) => {
    const q = required[k]!;
    if (!isFiniteInterval(p) || !isFiniteInterval(q)) return true;
    return !(analyzer.canProveGreater(p.min, q.min) || analyzer.canProveLess(p.max, q.max));
  });
}

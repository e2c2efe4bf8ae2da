/**
 * Body-pattern analysis of compute-inline and reverse-compute-inline (TVM's
 * `BodyPatternAllowInline`), and the producer lookup of reverse-compute-inline.
 */
import {
  Analyzer,
  type Block,
  type BufferLoad,
  type IterMark,
  type Buffer,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  IRVisitor,
  add,
  boolImm,
  detectIterMap,
  evalSet,
  intervalFromRange,
  isFiniteInterval,
  sameExprStructure,
  sub,
  substitute,
  usesVar,
  variable,
} from "@tessera/ir";
import type { BlockScope } from "../../analysis/scope.js";
import { completeBlockErrorCode } from "../../analysis/schedule-checks.js";
import { inverseAffineIterMap } from "../../analysis/inverse-iter-map.js";
import type { BlockEntry, TreeIndex } from "../../state/tree-index.js";
import { type ReverseInlineInfo, iterInBound } from "./rewrite.js";

export interface InlinedStore {
  /** One variable per buffer dimension: the producer's iterators, or fresh placeholders `ph_k`. */
  readonly indexVars: readonly Var[];
  /** The stored value, written in `indexVars`. */
  readonly value: PrimExpr;
}

const isUnitIter = (dom: Range, analyzer: Analyzer) => dom.min.kind === "IntImm" && analyzer.canProveEqual(dom.extent, 1);

/**
 * `A[f(v)] = g(v)` with f the identity (fast path) or a bijective affine map of the block's
 * iterators; undefined when the body has another shape.
 */
export function analyzeInlinedStore(blk: Block): InlinedStore | undefined {
  const store = blk.body;
  if (store.kind !== "BufferStore") return undefined;
  const analyzer = new Analyzer();
  if (blk.iterVars.length === store.indices.length) {
    const trivial = blk.iterVars.every((iv, k) => {
      const e = store.indices[k]!;
      return e === iv.var || (analyzer.canProveEqual(e, 0) && analyzer.canProveEqual(iv.dom.min, 0) && analyzer.canProveEqual(iv.dom.extent, 1));
    });
    if (trivial) return { indexVars: blk.iterVars.map((iv) => iv.var), value: store.value };
  }
  const doms = new Map<Var, Range>(blk.iterVars.map((iv) => [iv.var, iv.dom]));
  const map = detectIterMap(store.indices, doms, undefined, { requireBijective: true });
  if (map.errors.length > 0) return undefined;
  const placeholders = store.indices.map((e, k) => variable(`ph_${k}`, e.dtype));
  const inverse = inverseAffineIterMap(map.indices, placeholders);
  for (const iv of blk.iterVars) if (isUnitIter(iv.dom, analyzer)) inverse.set(iv.var, iv.dom.min);
  return { indexVars: placeholders, value: substitute(store.value, inverse) };
}

/** The leaf blocks under the scope that write `buffer`, and the first of them that is not complete. */
export function leafWriters(index: TreeIndex, scope: BlockScope, buffer: Buffer): { producers: BlockEntry[]; incomplete?: BlockEntry } {
  const producers: BlockEntry[] = [];
  for (const b of index.blocks) {
    if (scope.root !== undefined && !index.isAncestor(scope.root, b)) continue;
    if (index.childBlocks(b).length > 0 || !b.node.writes.some((w) => w.buffer === buffer)) continue;
    if (completeBlockErrorCode(scope, b) !== 0) return { producers, incomplete: b };
    producers.push(b);
  }
  return { producers };
}

/**
 * Checks the consumer `B[...] = g(A[f(v)], ...)` against its producer and works out how the
 * consumer's iterators map onto the producer's; undefined when the pattern does not hold.
 */
export function analyzeReverseInline(consumer: BlockEntry, producer: Block, inlined: Buffer): ReverseInlineInfo | undefined {
  const { node: blk, realize } = consumer;
  if (!(realize.predicate.kind === "IntImm" && realize.predicate.value === 1)) return undefined;
  const store = blk.body;
  if (store.kind !== "BufferStore") return undefined;
  const loads = loadsOf(inlined, store.indices, store.value);
  if (loads.length === 0) return undefined;
  const loadIndices = loads[0]!.indices;
  const sameIndices = (l: BufferLoad) => l.indices.length === loadIndices.length && l.indices.every((e, k) => sameExprStructure(e, loadIndices[k]!));
  if (!loads.every(sameIndices)) return undefined;

  const analyzer = new Analyzer();
  const indexSub = new Map<Var, PrimExpr>();
  const doms = new Map<Var, Range>();
  for (const iv of blk.iterVars) {
    doms.set(iv.var, iv.dom);
    if (iv.dom.extent.kind === "IntImm" && iv.dom.extent.value === 1 && iv.dom.min.kind === "IntImm") indexSub.set(iv.var, iv.dom.min);
  }
  const producerStore = storeOfProducer(producer.body);
  if (producerStore === undefined) return undefined;
  if (isIteratorPermutation(loadIndices, doms)) {
    // Each load index is its own iterator: the map is its own inverse whatever the extents
    // (symbolic ones included, which the iterator-map detection does not take).
    loadIndices.forEach((e, k) => {
      if (k < producerStore.indices.length) indexSub.set(e as Var, producerStore.indices[k]!);
    });
  } else {
    const map = detectIterMap(loadIndices, doms);
    if (map.errors.length > 0 || map.indices.length === 0) return undefined;
    for (const [v, e] of inverseAffineIterMap(map.indices, producerStore.indices)) indexSub.set(v, e);
    // TVM keeps unit iterators in the map (simplify_trivial_iterators = false): a unit iterator
    // that is a whole load index takes the producer's index there, not its constant minimum.
    loadIndices.forEach((e, k) => {
      if (e.kind === "Var" && doms.has(e) && !usesIterator(map.indices, e) && k < producerStore.indices.length) indexSub.set(e, producerStore.indices[k]!);
    });
  }
  if (!consumerCovered(blk, producer, indexSub, analyzer)) return undefined;
  return { consumerStore: store, indexSub, consumerInBound: iterInBound(blk.iterVars) ?? boolImm(true), producer };
}

/** Are the indices distinct iterators of the block, each used whole? */
function isIteratorPermutation(indices: readonly PrimExpr[], doms: ReadonlyMap<Var, Range>): boolean {
  const seen = new Set<Var>();
  for (const e of indices) {
    if (e.kind !== "Var" || !doms.has(e) || seen.has(e)) return false;
    seen.add(e);
  }
  return true;
}

/** The producer's store: its body, or the then-branch of an `if` without else. */
function storeOfProducer(body: Stmt) {
  if (body.kind === "IfThenElse") return body.elseCase === undefined && body.thenCase.kind === "BufferStore" ? body.thenCase : undefined;
  return body.kind === "BufferStore" ? body : undefined;
}

/** Every consumer iterator must be mapped, and the producer must reach its whole domain. */
function consumerCovered(consumer: Block, producer: Block, indexSub: ReadonlyMap<Var, PrimExpr>, analyzer: Analyzer): boolean {
  const producerDoms = new Map(producer.iterVars.map((iv) => [iv.var, intervalFromRange(iv.dom, analyzer)] as const));
  return consumer.iterVars.every((iv) => {
    const e = indexSub.get(iv.var);
    if (e === undefined) return false;
    const range = evalSet(e, producerDoms, analyzer);
    if (!isFiniteInterval(range)) return true;
    const last = analyzer.simplify(sub(add(iv.dom.min, iv.dom.extent), 1));
    return !(analyzer.canProveGreater(range.min, iv.dom.min) || analyzer.canProveLess(range.max, last));
  });
}

function loadsOf(buffer: Buffer, indices: readonly PrimExpr[], value: PrimExpr): BufferLoad[] {
  const found: BufferLoad[] = [];
  class Collector extends IRVisitor {
    override visitExpr(e: PrimExpr): void {
      if (e.kind === "BufferLoad" && e.buffer === buffer) found.push(e);
      super.visitExpr(e);
    }
  }
  const c = new Collector();
  indices.forEach((i) => c.visitExpr(i));
  c.visitExpr(value);
  return found;
}

/** Whether the iterator map uses input iterator `v` (detectIterMap drops unit iterators). */
function usesIterator(sums: ReturnType<typeof detectIterMap>["indices"], v: Var): boolean {
  const inMark = (m: IterMark): boolean => {
    const src = m.source;
    if (src.kind === "IterSum") return src.args.some((a) => inMark(a.source));
    return usesVar(src, (x) => x === v);
  };
  return sums.some((s) => s.args.some((a) => inMark(a.source)));
}

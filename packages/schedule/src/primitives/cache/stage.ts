/**
 * The cache buffer and the copy stage of cache_read / cache_write (TVM's `MakeCacheStage`).
 * The stage is one block named `<buf>_<scope>` with one data-parallel iterator `v<d>` per
 * dimension, under serial loops `ax<d>` that span the cached region's extents.
 * - full-shape cache (stage under a loop, or not every reader below the stage): iterators span
 *   the whole buffer, bound to `region.min + ax`, and both sides use the same indices;
 * - compact cache (stage at the scope root above every reader): the cache has the region's shape,
 *   iterators span it, bound to `ax`, and the original buffer is indexed `region.min + v`.
 */
import {
  type Analyzer,
  type Block,
  type IntervalSet,
  type Buffer,
  type BufferRegion,
  type PrimExpr,
  type Stmt,
  type StorageScope,
  type Var,
  add,
  block,
  blockRealize,
  bufferLoad,
  bufferStore,
  forLoop,
  and,
  evalSet,
  ge,
  intImm,
  intervalFromRange,
  iterVar,
  lt,
  sub,
  variable,
  withBuffer,
} from "@tessera/ir";

/** `a + b`, folding a literal zero as TVM's expression builder does. */
export function plus(a: PrimExpr, b: PrimExpr): PrimExpr {
  if (a.kind === "IntImm" && a.value === 0) return b;
  if (b.kind === "IntImm" && b.value === 0) return a;
  return add(a, b);
}

/** The cache buffer `<buf>_<scope>`: same dtype, new storage; compact caches take the region's extents as shape. */
export function makeCacheBuffer(original: Buffer, scope: StorageScope, region: BufferRegion, fullShape: boolean): Buffer {
  const name = `${original.name}_${scope}`;
  return fullShape ? withBuffer(original, { name, scope }) : withBuffer(original, { name, scope, shape: region.region.map((r) => r.extent), strides: [] });
}

export interface CacheStage {
  /** The loop nest (or the bare realize for a 0-d buffer) to insert. */
  readonly stmt: Stmt;
  readonly block: Block;
}

/**
 * The copy `dst[..] = src[..]` over `region` (a region of the original buffer). `cacheIsSource`
 * says which side is the cache (cache_write copies out of it).
 */
export function makeCacheStage(opts: {
  region: BufferRegion;
  src: Buffer;
  dst: Buffer;
  cacheIsSource: boolean;
  scope: StorageScope;
  fullShape: boolean;
  /** Knows the loops around the insertion point; used to prove the copy stays inside the buffer. */
  analyzer: Analyzer;
  /** The domains, symbolic ones included, of the loops and block iterators around the insertion point. */
  outerDomains: ReadonlyMap<Var, IntervalSet>;
}): CacheStage {
  const { region, src, dst, cacheIsSource, scope, fullShape, analyzer, outerDomains } = opts;
  const original = region.buffer;
  const loopVars = region.region.map((r, d) => variable(`ax${d}`, r.extent.dtype));
  const iterValues = region.region.map((r, d) => (fullShape ? plus(r.min, loopVars[d]!) : loopVars[d]!));
  const iters = region.region.map((r, d) => {
    const v = variable(`v${d}`, r.extent.dtype);
    const extent = fullShape ? original.shape[d]! : r.extent;
    return iterVar(v, { min: intImm(0, extent.dtype), extent }, "spatial");
  });
  const cacheIdx = iters.map((iv) => iv.var as PrimExpr);
  const origIdx = iters.map((iv, d) => (fullShape ? iv.var : plus(region.region[d]!.min, iv.var)));
  const srcIdx = cacheIsSource ? cacheIdx : origIdx;
  const dstIdx = cacheIsSource ? origIdx : cacheIdx;
  const point = (b: Buffer, idx: PrimExpr[]): BufferRegion => ({ buffer: b, region: idx.map((i) => ({ min: i, extent: intImm(1, i.dtype) })) });
  const stage = block({
    name: `${original.name}_${scope}`,
    iterVars: iters,
    reads: [point(src, srcIdx)],
    writes: [point(dst, dstIdx)],
    body: bufferStore(dst, bufferLoad(src, srcIdx), dstIdx),
  });
  let stmt: Stmt = blockRealize(iterValues, inBufferPredicate(region, loopVars, analyzer, outerDomains), stage);
  for (let d = loopVars.length - 1; d >= 0; d--) stmt = forLoop(loopVars[d]!, region.region[d]!.extent, stmt);
  return { stmt, block: stage };
}

/**
 * The copy's `T.where`: a relaxed region can reach past the buffer (e.g. a reader under a
 * non-divisible split, whose own predicate the relaxation drops), and copying those points would
 * access memory out of bounds. Each bound that cannot be proven becomes a conjunct.
 */
function inBufferPredicate(
  region: BufferRegion,
  loopVars: readonly Var[],
  analyzer: Analyzer,
  outerDomains: ReadonlyMap<Var, IntervalSet>,
): PrimExpr | boolean {
  const conjuncts: PrimExpr[] = [];
  region.region.forEach((r, d) => {
    const ax = loopVars[d]!;
    analyzer.bind(ax, { min: intImm(0, r.extent.dtype), extent: r.extent }, true);
    const index = plus(r.min, ax);
    const lower = ge(index, intImm(0, index.dtype));
    const upper = lt(index, region.buffer.shape[d]!);
    if (!analyzer.canProve(lower)) conjuncts.push(lower);
    if (!analyzer.canProve(upper) && !withinSymbolicShape(index, region.buffer.shape[d]!, ax, r.extent, analyzer, outerDomains)) conjuncts.push(upper);
  });
  return conjuncts.length === 0 ? true : conjuncts.reduce((acc, c) => and(acc, c));
}

/**
 * `index < extent` proven over symbolic domains (`v * 32 + ax0 < (n + 31) // 32 * 32` with `v` in
 * `[0, (n + 31) // 32)`): the largest value of the index, worked out symbolically, is at most
 * `extent - 1`.
 */
function withinSymbolicShape(
  index: PrimExpr,
  extent: PrimExpr,
  ax: Var,
  axExtent: PrimExpr,
  analyzer: Analyzer,
  outerDomains: ReadonlyMap<Var, IntervalSet>,
): boolean {
  const doms = new Map(outerDomains);
  doms.set(ax, intervalFromRange({ min: intImm(0, axExtent.dtype), extent: axExtent }, analyzer));
  const hull = evalSet(index, doms, analyzer);
  if (hull.max.kind === "PosInf") return false;
  return analyzer.canProveGreaterEqual(analyzer.simplify(sub(sub(extent, 1), hull.max as PrimExpr)), 0);
}

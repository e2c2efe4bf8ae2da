/**
 * Pass 4, `compactBufferAllocation` (TVM CompactBufferAllocation): every buffer a block allocates
 * (and every flat allocation, `T.decl_buffer` without `data`, unless another buffer views its
 * storage) shrinks to the hull of the regions accessed below its allocation, and all its accesses are
 * re-based (the region's minimum is subtracted). Loops inside the allocation are relaxed, except
 * thread-bound loops whose threads do not share the buffer's storage (a `local` buffer is private
 * to each thread, so it is not relaxed over `threadIdx`; a `shared` one is). Loops above the
 * allocation stay symbolic: the region's minimum may use them. The block annotation
 * `buffer_dim_align` (from `Schedule.storageAlign`) pads strides so that `stride[axis] % factor ==
 * offset`. Requires convertBlocksToOpaque.
 *
 * Beyond TVM: a thread-private (`local`) buffer whose hull is larger than what one thread touches
 * (a register stage strided through its tile) is indexed by its accesses' loop iterators instead,
 * where every access reaches its element through the same injective affine function of them
 * (util/iterator-layout.ts): the allocation is then exactly the thread's elements.
 */
import {
  Analyzer,
  type AttrValue,
  type Block,
  type BlockRealize,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
  type BufferStore,
  type For,
  IRMutator,
  type IntervalSet,
  type MatchBufferRegion,
  type PrimExpr,
  type PrimFunc,
  type Range,
  type Stmt,
  type Var,
  add,
  annotationInt,
  annotationValueProblem,
  floormod,
  forEachExpr,
  intImm,
  intervalFromRange,
  max,
  min,
  mul,
  sub,
  usesVar,
  withBody,
  withBuffer,
  sameExprStructure,
  dtypeInfo,
  canRelaxStorageUnderThread,
  substitute,
  variable,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";
import { requireOpaqueBlocks } from "../util/block-checks.js";
import { LoopContextVisitor } from "../util/loop-context.js";
import { iteratorLayout } from "../util/iterator-layout.js";
import { boundIndex } from "../util/region-bounds.js";

const PASS = "compactBufferAllocation";
const DIM_ALIGN = "buffer_dim_align";

/** One access: its indices (or region corners), the loops inside the allocation and the conditions around it. */
interface Access {
  readonly points: readonly (readonly PrimExpr[])[];
  readonly innerLoops: readonly For[];
  readonly conditions: readonly PrimExpr[];
  /** The load or store (undefined for a match_buffer's region). */
  readonly node: BufferLoad | BufferStore | undefined;
}

interface Allocation {
  readonly buffer: Buffer;
  readonly outerLoops: readonly For[];
  readonly accesses: Access[];
  /**
   * One variable per thread tag of the inner thread loops the buffer is not relaxed over. Loops of
   * one tag are one thread index once lowered (lowerOpaqueBlock unifies them), so accesses under
   * different loops of a tag — a register stage written by one cooperative-fetch loop and read by
   * another — are compared in terms of the same variable.
   */
  readonly threadVars: Map<string, Var>;
}

interface DimAlign {
  readonly factor: number;
  readonly offset: number;
}

class AccessCollector extends LoopContextVisitor {
  readonly allocations = new Map<Buffer, Allocation>();
  readonly dimAligns = new Map<Buffer, Map<number, DimAlign>>();

  private record(buffer: Buffer, points: readonly (readonly PrimExpr[])[], node?: BufferLoad | BufferStore): void {
    const alloc = this.allocations.get(buffer);
    if (alloc === undefined) return;
    // Lowered code may access a flat allocation with vectors (`T.Ramp`): its storage is left as declared.
    if (this.flat.has(buffer) && points.some((p) => p.some((i) => dtypeInfo(i.dtype).lanes !== 1))) this.opaque.add(buffer);
    const innerLoops = this.loops.slice(alloc.outerLoops.length);
    const canonical = new Map<Var, PrimExpr>();
    for (const l of innerLoops) {
      if (l.forKind !== "thread_binding" || relaxable(buffer, l, false)) continue;
      canonical.set(l.loopVar, threadVarOf(alloc, l));
    }
    // Let-bound variables stand for their values (which may use the loops relaxed here).
    const withLets = (e: PrimExpr) => (this.lets.size === 0 ? e : substitute(e, this.lets));
    const rewrite = (e: PrimExpr) => (canonical.size === 0 ? withLets(e) : substitute(withLets(e), canonical));
    alloc.accesses.push({
      points: points.map((p) => p.map(rewrite)),
      innerLoops,
      conditions: this.conditions.map(rewrite),
      node,
    });
  }

  /** The let bindings around the statement visited, each value with the outer bindings substituted. */
  private readonly lets = new Map<Var, PrimExpr>();

  override visitStmt(s: Stmt): void {
    if (s.kind === "Allocate") this.allocateFlat(s.buffer);
    if (s.kind === "DeclBuffer") this.declare(s.buffer);
    if (s.kind !== "LetStmt") return super.visitStmt(s);
    this.visitExpr(s.value);
    const shadowed = this.lets.get(s.variable);
    this.lets.set(s.variable, this.lets.size === 0 ? s.value : substitute(s.value, this.lets));
    this.visitStmt(s.body);
    if (shadowed === undefined) this.lets.delete(s.variable);
    else this.lets.set(s.variable, shadowed);
  }

  /** A flat allocation (TVM's AllocBuffer, `T.decl_buffer` without `data`) is compacted like a block's. */
  private readonly flat = new Set<Buffer>();

  private allocateFlat(b: Buffer): void {
    this.flat.add(b);
    this.allocations.set(b, { buffer: b, outerLoops: [...this.loops], accesses: [], threadVars: new Map() });
    this.byData.set(b.data, b);
  }

  /** Another view of an allocation's storage (other shape or type) leaves the allocation as declared, as in TVM. */
  private declare(b: Buffer): void {
    const allocated = this.byData.get(b.data);
    if (allocated !== undefined && allocated !== b) this.opaque.add(allocated);
  }

  override visitBlockRealize(s: BlockRealize): void {
    for (const b of s.block.allocBuffers) {
      this.allocations.set(b, { buffer: b, outerLoops: [...this.loops], accesses: [], threadVars: new Map() });
      this.byData.set(b.data, b);
    }
    this.collectDimAlign(s.block);
    super.visitBlockRealize(s);
  }

  override visitBlock(b: Block): void {
    for (const m of b.matchBuffers) this.record(m.source.buffer, regionCorners(m.source.region));
    const declared = new Map<Buffer, BufferRegion[]>();
    for (const r of [...b.reads, ...b.writes]) declared.set(r.buffer, [...(declared.get(r.buffer) ?? []), r]);
    this.declaredRegions.push(declared);
    super.visitBlock(b);
    this.declaredRegions.pop();
  }

  /** The read and write regions of the blocks around the statement visited, innermost last. */
  private readonly declaredRegions: Map<Buffer, BufferRegion[]>[] = [];

  override visitBufferLoad(e: BufferLoad): void {
    this.record(e.buffer, [e.indices], e);
    super.visitBufferLoad(e);
  }

  /**
   * Allocations whose storage pointer is used directly (passed to a call) where no enclosing block
   * declares which of its elements are touched: any element may be.
   */
  readonly opaque = new Set<Buffer>();
  private readonly byData = new Map<Var, Buffer>();

  /** A storage pointer used directly touches what the innermost block naming the buffer declares (as in TVM). */
  override visitVar(v: Var): void {
    const b = this.byData.get(v);
    if (b === undefined) return;
    let declared: BufferRegion[] | undefined;
    for (let k = this.declaredRegions.length - 1; k >= 0 && declared === undefined; k--) declared = this.declaredRegions[k]!.get(b);
    if (declared === undefined) this.opaque.add(b);
    else for (const r of declared) this.record(b, regionCorners(r.region));
  }

  override visitBufferStore(s: BufferStore): void {
    this.record(s.buffer, [s.indices], s);
    super.visitBufferStore(s);
  }

  private collectDimAlign(b: Block): void {
    const list = b.annotations[DIM_ALIGN];
    if (list === undefined) return;
    const problem = annotationValueProblem(`block ${b.name}`, DIM_ALIGN, list);
    if (problem !== undefined) throw new LoweringError(PASS, problem);
    for (const entry of list as readonly (readonly AttrValue[])[]) {
      const [bufferIndex, axis, factor, offset] = entry.map((x) => annotationInt(x)!);
      const buffer = b.writes[bufferIndex!]?.buffer;
      if (buffer === undefined || factor! <= 0) continue;
      const perAxis = this.dimAligns.get(buffer) ?? new Map<number, DimAlign>();
      perAxis.set(axis!, { factor: factor!, offset: offset! });
      this.dimAligns.set(buffer, perAxis);
    }
  }
}

/** The allocation's variable for the thread tag of loop `l` (created at the first loop of the tag). */
function threadVarOf(alloc: Allocation, l: For): Var {
  const tag = l.threadTag ?? "";
  let v = alloc.threadVars.get(tag);
  if (v === undefined) {
    v = variable(tag.replace(/\./g, "_"), l.loopVar.dtype);
    alloc.threadVars.set(tag, v);
  }
  return v;
}

/** The first and last element of a region, as two index tuples. */
function regionCorners(region: readonly Range[]): PrimExpr[][] {
  return [region.map((r) => r.min), region.map((r) => sub(add(r.min, r.extent), 1))];
}

function loopRange(l: For): Range {
  return { min: l.min, extent: l.extent };
}

/** Is `l` a loop over which the storage of `buffer` may be relaxed? */
function relaxable(buffer: Buffer, l: For, relaxThreads: boolean): boolean {
  if (l.forKind !== "thread_binding") return true;
  return relaxThreads || canRelaxStorageUnderThread(buffer.scope, l.threadTag ?? "");
}

/** The hull, per dimension, of the accessed indices; undefined where a bound is unknown. */
function accessedHull(alloc: Allocation, analyzer: Analyzer, relaxThreads: boolean): (IntervalSet | undefined)[] {
  const dims = alloc.buffer.shape.length;
  const hull: (IntervalSet | undefined)[] = new Array(dims).fill(undefined);
  let first = true;
  // The facts do not change below: each loop's interval is worked out once for all accesses.
  const intervals = new Map<For, IntervalSet>();
  const intervalOf = (l: For): IntervalSet => {
    let set = intervals.get(l);
    if (set === undefined) {
      set = intervalFromRange(loopRange(l), analyzer);
      intervals.set(l, set);
    }
    return set;
  };
  for (const access of alloc.accesses) {
    const dom = new Map<Var, IntervalSet>();
    // Thread loops above the allocation are relaxed too where the threads share the storage (TVM's
    // NeedRelaxThread): a shared tile allocated under the compute's threadIdx loops is the whole
    // block's tile, not one thread's.
    for (const l of alloc.outerLoops) {
      if (l.forKind === "thread_binding" && canRelaxStorageUnderThread(alloc.buffer.scope, l.threadTag ?? "")) {
        dom.set(l.loopVar, intervalOf(l));
      }
    }
    for (const l of access.innerLoops) {
      if (relaxable(alloc.buffer, l, relaxThreads)) dom.set(l.loopVar, intervalOf(l));
    }
    for (const point of access.points) {
      for (let d = 0; d < dims; d++) {
        const set = boundIndex(point[d]!, dom, access.conditions, analyzer);
        const prev = hull[d];
        if (first) hull[d] = set;
        else if (prev === undefined || set.min.kind === "NegInf" || set.max.kind === "PosInf") hull[d] = undefined;
        else if (prev.min.kind !== "NegInf" && prev.max.kind !== "PosInf") {
          hull[d] = { min: hullEnd(min, prev.min, set.min, analyzer), max: hullEnd(max, prev.max, set.max, analyzer) };
        }
        if (hull[d] !== undefined && (hull[d]!.min.kind === "NegInf" || hull[d]!.max.kind === "PosInf")) hull[d] = undefined;
      }
      first = false;
    }
  }
  return hull;
}

/**
 * `min(a, b)` or `max(a, b)`, simplified. Accesses often agree, and for integers the simplifier
 * makes `min(x, x)` what it makes `x`: that one is simplified directly.
 */
function hullEnd(op: typeof min, a: PrimExpr, b: PrimExpr, analyzer: Analyzer): PrimExpr {
  const scalarInt = dtypeInfo(a.dtype).lanes === 1 && (dtypeInfo(a.dtype).code === "int" || dtypeInfo(a.dtype).code === "uint");
  return scalarInt && sameExprStructure(a, b) ? analyzer.simplify(a) : analyzer.simplify(op(a, b));
}

/**
 * The compacted range of one dimension, clamped to the buffer, or undefined when it cannot be
 * expressed at the allocation point (unknown bounds, or a minimum that depends on loops inside).
 */
function compactRange(set: IntervalSet | undefined, extent: PrimExpr, innerVars: ReadonlySet<Var>, analyzer: Analyzer, strict: boolean): Range | undefined {
  if (set === undefined || set.min.kind === "NegInf" || set.max.kind === "PosInf") return undefined;
  const zero = intImm(0, extent.dtype);
  const last = analyzer.simplify(sub(extent, 1));
  let lo: PrimExpr = set.min;
  let hi: PrimExpr = set.max;
  if (strict && !analyzer.canProveGreaterEqual(lo, 0)) lo = analyzer.canProveLess(lo, 0) ? zero : analyzer.simplify(max(zero, lo));
  if (strict && !analyzer.canProveLessEqual(hi, last)) hi = analyzer.canProveGreater(hi, last) ? last : analyzer.simplify(min(hi, last));
  let size = analyzer.simplify(add(sub(hi, lo), 1));
  if (size.kind !== "IntImm") {
    // Clamping to a symbolic extent (`min(i * 8 + 7, n * 8 - 1)`) may hide a constant hull size;
    // the hull's own size serves when it provably fits the buffer (TVM's CompactBufferAllocation).
    const unclamped = analyzer.simplify(add(sub(set.max, lo), 1));
    if (unclamped.kind === "IntImm" && analyzer.canProveLessEqual(unclamped, extent)) size = unclamped;
  }
  if (size.kind !== "IntImm") {
    // A data-dependent size (a partial tile): allocate its upper bound.
    const bound = sizeUpperBound(lo, hi, analyzer);
    if (!Number.isFinite(bound)) return undefined;
    size = intImm(bound, extent.dtype);
  }
  const inner = (v: Var) => innerVars.has(v);
  if (usesVar(lo, inner)) return undefined;
  // Sanity: a compacted dimension never exceeds the buffer's. An upper bound that cannot be shown
  // to fit (a symbolic extent whose variable is unbounded) keeps the dimension as declared.
  const fits = extent.kind === "IntImm" ? size.value <= extent.value : analyzer.canProveLessEqual(size, extent);
  if (strict && !fits) return undefined;
  return { min: analyzer.simplify(lo), extent: size };
}

/**
 * An upper bound of `hi - lo + 1`. A clamped end (`lo = max(a, b)`, `hi = min(c, d)`) is spread
 * over the size (`hi - max(a, b) + 1 = min(hi - a + 1, hi - b + 1)`), so that a tile clamped at
 * the border (`[max(h * 8 - 1, 0), h * 8 + 7]`) is bounded by its interior size (9), as TVM bounds
 * it, where interval evaluation of the whole difference is not.
 */
function sizeUpperBound(lo: PrimExpr, hi: PrimExpr, analyzer: Analyzer): number {
  const ends = (e: PrimExpr, op: "max" | "min"): PrimExpr[] => (e.kind === "Binary" && e.op === op ? [...ends(e.a, op), ...ends(e.b, op)] : [e]);
  let bound = Number.POSITIVE_INFINITY;
  for (const l of ends(lo, "max")) {
    for (const h of ends(hi, "min")) bound = Math.min(bound, analyzer.constIntBound(analyzer.simplify(add(sub(h, l), 1))).max);
  }
  return bound;
}

/** Binds the shape variables of `buffer` that no loop binds to [1, max]: shapes are positive. */
function assumePositiveShape(buffer: Buffer, analyzer: Analyzer, loopVars: ReadonlySet<Var>): void {
  for (const dim of buffer.shape) {
    forEachExpr(dim, (e) => {
      if (e.kind === "Var" && !loopVars.has(e) && (e.dtype === "int32" || e.dtype === "int64")) {
        const top = e.dtype === "int32" ? 2 ** 31 - 2 : 2 ** 53;
        analyzer.bind(e, { min: intImm(1, e.dtype), extent: intImm(top, e.dtype) }, true);
      }
    });
  }
}

function compactRegion(alloc: Allocation, relaxThreads: boolean, strict = true): (Range | undefined)[] {
  const analyzer = new Analyzer();
  for (const l of alloc.outerLoops) analyzer.bind(l.loopVar, loopRange(l), true);
  for (const a of alloc.accesses) {
    for (const l of a.innerLoops) {
      analyzer.bind(l.loopVar, loopRange(l), true);
      const tv = l.forKind === "thread_binding" ? alloc.threadVars.get(l.threadTag ?? "") : undefined;
      if (tv !== undefined) analyzer.bind(tv, loopRange(l), true);
    }
  }
  // A minimum may use a loop inside the allocation (a thread index a local buffer is not relaxed
  // over) only when every access is inside that loop — or, for a thread index, inside a loop of
  // its tag: the minimum is evaluated at each access.
  const innerVars = new Set<Var>();
  for (const a of alloc.accesses) for (const l of a.innerLoops) innerVars.add(l.loopVar);
  for (const v of [...innerVars]) {
    if (alloc.accesses.every((a) => a.innerLoops.some((l) => l.loopVar === v))) innerVars.delete(v);
  }
  for (const [tag, tv] of alloc.threadVars) {
    const everyAccessUnderTag = alloc.accesses.every((a) => a.innerLoops.some((l) => l.forKind === "thread_binding" && l.threadTag === tag));
    if (!everyAccessUnderTag) innerVars.add(tv);
  }
  const loopVars = new Set([...alloc.outerLoops, ...alloc.accesses.flatMap((a) => a.innerLoops)].map((l) => l.loopVar));
  assumePositiveShape(alloc.buffer, analyzer, loopVars);
  const hull = accessedHull(alloc, analyzer, relaxThreads);
  return hull.map((set, d) => compactRange(set, alloc.buffer.shape[d]!, innerVars, analyzer, strict));
}

/** Strides that satisfy `stride[axis] % factor == offset` for every aligned axis (padding as needed). */
function alignedStrides(shape: readonly PrimExpr[], aligns: ReadonlyMap<number, DimAlign>): PrimExpr[] {
  const analyzer = new Analyzer();
  const strides: PrimExpr[] = new Array(shape.length);
  let stride: PrimExpr = intImm(1, shape[0]?.dtype ?? "int32");
  for (let d = shape.length - 1; d >= 0; d--) {
    const a = aligns.get(d);
    if (a !== undefined) {
      const pad = floormod(sub(a.factor + a.offset, floormod(stride, a.factor)), a.factor);
      stride = analyzer.simplify(add(stride, pad));
    }
    strides[d] = stride;
    stride = analyzer.simplify(mul(stride, shape[d]!));
  }
  return strides;
}

interface Compaction {
  readonly buffer: Buffer;
  readonly mins: readonly PrimExpr[];
  /** Thread-tag variables the minimums may use, replaced at each access by its loop of that tag. */
  readonly threadVars: ReadonlyMap<string, Var>;
  /** For a buffer indexed by iterators: each load's and store's new indices (replacing the rebase). */
  readonly reindexed?: ReadonlyMap<BufferLoad | BufferStore, readonly PrimExpr[]>;
}

function isFullRegion(buffer: Buffer, region: readonly Range[]): boolean {
  const analyzer = new Analyzer();
  return region.every((r, d) => analyzer.canProveEqual(r.min, 0) && analyzer.canProveEqual(r.extent, buffer.shape[d]!));
}

function planCompaction(alloc: Allocation, aligns: ReadonlyMap<number, DimAlign> | undefined, strict: boolean): Compaction | undefined {
  if (alloc.accesses.length === 0) return undefined;
  let region = compactRegion(alloc, false, strict);
  // A region that cannot be expressed without per-thread variables is relaxed over threads too:
  // larger than needed, still correct.
  if (region.some((r) => r === undefined)) region = compactRegion(alloc, true, strict);
  const ranges = region.map((r, d) => r ?? { min: intImm(0, alloc.buffer.shape[d]!.dtype), extent: alloc.buffer.shape[d]! });
  if (aligns === undefined) {
    const byIterators = planIteratorIndexing(alloc, ranges);
    if (byIterators !== undefined) return byIterators;
  }
  if (isFullRegion(alloc.buffer, ranges) && aligns === undefined) return undefined;
  const shape = ranges.map((r) => r.extent);
  const strides = aligns === undefined ? [] : alignedStrides(shape, aligns);
  return { buffer: withBuffer(alloc.buffer, { shape, strides }), mins: ranges.map((r) => r.min), threadVars: alloc.threadVars };
}

/**
 * A thread-private buffer indexed by its accesses' loop iterators, when that is smaller than its
 * hull `ranges` (see util/iterator-layout.ts); undefined otherwise.
 */
function planIteratorIndexing(alloc: Allocation, ranges: readonly Range[]): Compaction | undefined {
  if (alloc.buffer.scope !== "local" || alloc.accesses.some((a) => a.node === undefined)) return undefined;
  const hull = ranges.reduce((n, r) => n * (r.extent.kind === "IntImm" ? r.extent.value : Infinity), 1);
  // The layout's iterators are loops of every access: when the first access's loops span no fewer
  // elements than the hull, no layout can be smaller (and working it out is costly).
  if (iteratedElements(alloc.accesses[0]!) >= hull) return undefined;
  // The accesses are flattened over the region of all threads (a tile's rows and columns), whose
  // row-major order is the tile's: its flattened indices simplify to the fused copy loop's.
  const box = compactRegion(alloc, true).map((r, d) => r?.extent ?? alloc.buffer.shape[d]!);
  const layout = iteratorLayout(
    box,
    alloc.accesses.map((a) => ({
      indices: a.points[0]!,
      loops: a.innerLoops.filter((l) => l.forKind !== "thread_binding").map((l) => ({ var: l.loopVar, min: l.min, extent: l.extent })),
    })),
  );
  if (layout === undefined || layout.shape.reduce((a, b) => a * b, 1) >= hull) return undefined;
  const reindexed = new Map<BufferLoad | BufferStore, readonly PrimExpr[]>();
  for (const [k, a] of alloc.accesses.entries()) {
    const indices = layout.indices[k]!;
    const seen = reindexed.get(a.node!);
    // One node reached twice (a shared subtree) must mean the same iterators both times.
    if (seen !== undefined && !seen.every((e, d) => sameExprStructure(e, indices[d]!))) return undefined;
    reindexed.set(a.node!, indices);
  }
  const dtype = alloc.buffer.shape[0]?.dtype ?? "int32";
  const shape = layout.shape.map((n) => intImm(n, dtype));
  return { buffer: withBuffer(alloc.buffer, { shape, strides: [] }), mins: shape.map(() => intImm(0, dtype)), threadVars: new Map(), reindexed };
}

/** The product of the constant extents above 1 of an access's non-thread loops: a bound on its layout's size. */
function iteratedElements(access: Access): number {
  let n = 1;
  for (const l of access.innerLoops) {
    if (l.forKind !== "thread_binding" && l.extent.kind === "IntImm" && l.extent.value > 1) n *= l.extent.value;
  }
  return n;
}

class AccessRebaser extends IRMutator {
  private readonly analyzer = new Analyzer();

  constructor(private readonly compactions: ReadonlyMap<Buffer, Compaction>) {
    super();
  }

  override mapBuffer(b: Buffer): Buffer {
    return this.compactions.get(b)?.buffer ?? b;
  }

  /** The loop variable of each thread tag around the statement being visited. */
  private readonly threadLoops = new Map<string, Var>();

  override visitFor(s: For): Stmt {
    if (s.forKind !== "thread_binding" || s.threadTag === undefined) return super.visitFor(s);
    const tag = s.threadTag;
    const outer = this.threadLoops.get(tag);
    this.threadLoops.set(tag, s.loopVar);
    try {
      return super.visitFor(s);
    } finally {
      if (outer === undefined) this.threadLoops.delete(tag);
      else this.threadLoops.set(tag, outer);
    }
  }

  private rebase(buffer: Buffer, indices: readonly PrimExpr[]): readonly PrimExpr[] {
    const c = this.compactions.get(buffer);
    if (c === undefined) return indices;
    const local = new Map<Var, PrimExpr>();
    for (const [tag, tv] of c.threadVars) {
      const loopVar = this.threadLoops.get(tag);
      if (loopVar !== undefined) local.set(tv, loopVar);
    }
    if (local.size > 0) return indices.map((i, d) => this.analyzer.simplify(sub(i, substitute(c.mins[d]!, local))));
    return indices.map((i, d) => this.rebased(i, c.mins[d]!));
  }

  /**
   * `i - min` simplified, once per index node: a block's regions, its loads and its stores share
   * their index nodes (block iterators were replaced by the same bindings), and the analyzer has
   * no facts that could change between them.
   */
  private rebased(i: PrimExpr, min: PrimExpr): PrimExpr {
    let byIndex = this.rebasedByMin.get(min);
    if (byIndex === undefined) {
      byIndex = new Map();
      this.rebasedByMin.set(min, byIndex);
    }
    let result = byIndex.get(i);
    if (result === undefined) {
      result = this.analyzer.simplify(sub(i, min));
      byIndex.set(i, result);
    }
    return result;
  }

  private readonly rebasedByMin = new Map<PrimExpr, Map<PrimExpr, PrimExpr>>();

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const visited = super.visitBufferLoad(e) as BufferLoad;
    const c = this.compactions.get(e.buffer);
    if (c === undefined) return visited;
    return { ...visited, indices: c.reindexed?.get(e) ?? this.rebase(e.buffer, visited.indices) };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const visited = super.visitBufferStore(s) as BufferStore;
    const c = this.compactions.get(s.buffer);
    if (c === undefined) return visited;
    return { ...visited, indices: c.reindexed?.get(s) ?? this.rebase(s.buffer, visited.indices) };
  }

  override visitRegion(r: BufferRegion): BufferRegion {
    const visited = super.visitRegion(r);
    const c = this.compactions.get(r.buffer);
    if (c === undefined) return visited;
    // Indexed by iterators, a region of elements is no region of the new layout: the whole buffer.
    if (c.reindexed !== undefined) return { ...visited, region: c.buffer.shape.map((extent) => ({ min: intImm(0, extent.dtype), extent })) };
    const mins = this.rebase(
      r.buffer,
      visited.region.map((x) => x.min),
    );
    return { ...visited, region: visited.region.map((x, d) => ({ min: mins[d]!, extent: x.extent })) };
  }

  override visitMatchBuffer(m: MatchBufferRegion): MatchBufferRegion {
    const source = this.visitRegion(m.source);
    return source === m.source ? m : { ...m, source };
  }
}

export interface CompactBufferAllocationOptions {
  /**
   * TVM's `is_strict` (default true): a compacted region never exceeds the buffer. Off, a region
   * accessed out of the buffer's bounds (a padded tile guarded by a predicate) is allocated whole.
   */
  readonly strict?: boolean;
}

export function compactBufferAllocation(func: PrimFunc, opts: CompactBufferAllocationOptions = {}): PrimFunc {
  requireOpaqueBlocks(PASS, func.body);
  const collector = new AccessCollector();
  collector.visitStmt(func.body);
  const compactions = new Map<Buffer, Compaction>();
  for (const alloc of collector.allocations.values()) {
    if (collector.opaque.has(alloc.buffer)) continue;
    const c = planCompaction(alloc, collector.dimAligns.get(alloc.buffer), opts.strict !== false);
    if (c !== undefined) compactions.set(alloc.buffer, c);
  }
  if (compactions.size === 0) return func;
  return withBody(func, new AccessRebaser(compactions).visitStmt(func.body));
}

export const compactBufferAllocationPass: Pass = { name: PASS, run: (func) => compactBufferAllocation(func) };

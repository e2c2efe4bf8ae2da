/**
 * Block access-region inference, after TVM's `GetBlockAccessRegion` (sblock_access_region_detector):
 *
 * 1. Walk the block's init and body, but not the bodies of nested blocks. Loops inside the block
 *    are relaxed over their domains; the block's iter vars stay symbolic. Let-bound variables are
 *    replaced by their values first.
 * 2. Every BufferLoad / BufferStore index becomes an interval (`evalSet`), unioned per buffer and
 *    dimension; buffers are listed in order of first appearance.
 * 3. A nested BlockRealize contributes its declared reads/writes with its iter vars replaced by its
 *    bindings, relaxed over the loops between the two blocks.
 * 4. Accesses through a `match_buffer` target count as accesses of the whole source region,
 *    also where a nested block's regions name the target.
 * 5. Buffers the block allocates (and Allocate/DeclBuffer buffers inside it) are not recorded.
 *    Each dimension becomes [min, extent]; an unbounded end falls back to the buffer's extent.
 * 6. With an `init`, buffers the block writes are dropped from its reads.
 *
 * 7. Opaque accesses (TVM's `GetSBlockReadWriteRegion`), when the caller says which buffer a data
 *    pointer belongs to: `T.tvm_access_ptr(..., A.data, ..., mask)` reads (mask 1) or writes
 *    (mask 2) all of `A`; any other use of `A.data` (or mask 3) both reads and writes all of `A`,
 *    listed after the ordinary accesses, which then leave `A` out.
 *
 * Branch conditions (`if`, `if_then_else`, `T.where` of nested blocks) are ignored: the result may
 * be larger than necessary but always covers every access (TVM narrows ranges with them).
 */
import type { Buffer } from "../buffer.js";
import { type PrimExpr, type Var, add, intImm, mul, sub, variable } from "../expr.js";
import { IRMutator, IRVisitor, forEachExpr, substitute } from "../functor.js";
import { intrinsicInfo } from "../intrinsics.js";
import type { PrimFunc } from "../func.js";
import type { Block, BufferRegion, Range, Stmt } from "../stmt.js";
import { Analyzer } from "../arith/analyzer.js";
import { UNBOUNDED_INTERVAL, type IntervalSet, evalSet, intervalFromRange, unionIntervals } from "../arith/intervalSet.js";

export interface BlockAccessRegions {
  readonly reads: BufferRegion[];
  readonly writes: BufferRegion[];
}

export interface AccessRegionOptions {
  /** The buffer whose storage pointer is `data`, for opaque accesses through `A.data` (rule 7). */
  readonly bufferOfData?: ((data: Var) => Buffer | undefined) | undefined;
}

/** Infers the regions of outside buffers that `blk` reads and writes, in block-iter-var space. */
export function inferAccessRegions(blk: Block, opts: AccessRegionOptions = {}): BlockAccessRegions {
  return new AccessRegionCollector(blk, opts.bufferOfData).collect();
}

export interface MissingRegions {
  readonly reads: boolean;
  readonly writes: boolean;
}

/**
 * Fills in the access lists marked missing (by default: the empty ones) with inferred regions and
 * keeps the others as declared.
 */
export function completeBlockRegions(
  blk: Block,
  missing: MissingRegions = { reads: blk.reads.length === 0, writes: blk.writes.length === 0 },
  opts: AccessRegionOptions = {},
): Block {
  if (!missing.reads && !missing.writes) return blk;
  const inferred = inferAccessRegions(blk, opts);
  const reads = missing.reads ? inferred.reads : blk.reads;
  const writes = missing.writes ? inferred.writes : blk.writes;
  if (reads.length === 0 && writes.length === 0 && blk.reads.length === 0 && blk.writes.length === 0) return blk;
  return { ...blk, reads, writes };
}

/**
 * Fills the empty reads/writes of every block of `func`, innermost first (an outer block's regions
 * are built from its nested blocks' declared ones). The root block keeps empty lists, as in TVM.
 */
export function withInferredRegions(func: PrimFunc): PrimFunc {
  const filler = new RegionFiller();
  const root = func.body;
  let body: Stmt;
  if (root.kind === "BlockRealize") {
    const innerBody = filler.visitStmt(root.block.body);
    const init = root.block.init ? filler.visitStmt(root.block.init) : undefined;
    body = innerBody === root.block.body && init === root.block.init ? root : { ...root, block: { ...root.block, body: innerBody, init } };
  } else {
    body = filler.visitStmt(root);
  }
  return body === func.body ? func : { ...func, body };
}

class RegionFiller extends IRMutator {
  override visitBlock(b: Block): Block {
    const withChildren = super.visitBlock(b);
    return completeBlockRegions(withChildren);
  }
}

// ---------------------------------------------------------------------------------------------

type AccessTable = Map<Buffer, IntervalSet[]>;

class AccessRegionCollector extends IRVisitor {
  private readonly analyzer = new Analyzer();
  /** Domains of the loops inside the block, relaxed over. */
  private readonly loopDomains = new Map<Var, IntervalSet>();
  private readonly letValues = new Map<Var, PrimExpr>();
  private readonly localBuffers = new Set<Buffer>();
  private readonly matchSources = new Map<Buffer, BufferRegion>();
  private readonly reads: AccessTable = new Map();
  private readonly writes: AccessTable = new Map();
  /** Buffers reached through their data pointer in a way that may read and write anything. */
  private readonly opaque: AccessTable = new Map();

  constructor(
    private readonly blk: Block,
    private readonly bufferOfData: ((data: Var) => Buffer | undefined) | undefined,
  ) {
    super();
    for (const iv of blk.iterVars) {
      if (this.analyzer.canProveGreater(iv.dom.extent, 0)) this.analyzer.bind(iv.var, iv.dom, true);
    }
    for (const b of blk.allocBuffers) this.localBuffers.add(b);
    for (const m of blk.matchBuffers) this.matchSources.set(m.buffer, m.source);
  }

  collect(): BlockAccessRegions {
    if (this.blk.init) this.visitStmt(this.blk.init);
    this.visitStmt(this.blk.body);
    const notOpaque = (table: AccessTable): AccessTable => new Map([...table].filter(([buf]) => !this.opaque.has(buf)));
    const writeTable = notOpaque(this.writes);
    let readTable = notOpaque(this.reads);
    if (this.blk.init) readTable = new Map([...readTable].filter(([buf]) => !writeTable.has(buf)));
    const opaque = this.toRegions(this.opaque);
    return { reads: [...this.toRegions(readTable), ...opaque], writes: [...this.toRegions(writeTable), ...opaque] };
  }

  // -- statements ------------------------------------------------------------------------------

  override visitStmt(s: Stmt): void {
    switch (s.kind) {
      case "LetStmt":
        this.visitExpr(s.value);
        this.withLet(s.variable, s.value, () => this.visitStmt(s.body));
        return;
      case "Allocate":
      case "DeclBuffer":
        this.localBuffers.add(s.buffer);
        this.visitStmt(s.body);
        return;
      default:
        super.visitStmt(s);
    }
  }

  override visitFor(s: Stmt & { kind: "For" }): void {
    this.visitExpr(s.min);
    this.visitExpr(s.extent);
    const lo = this.relax(s.min).min;
    const hi = this.relax(sub(add(s.min, s.extent), 1)).max;
    this.loopDomains.set(s.loopVar, { min: lo, max: hi });
    this.visitStmt(s.body);
    this.loopDomains.delete(s.loopVar);
  }

  override visitBufferStore(s: Stmt & { kind: "BufferStore" }): void {
    this.visitExpr(s.value);
    for (const i of s.indices) this.visitExpr(i);
    this.recordIndices(this.writes, s.buffer, s.indices);
  }

  override visitBlockRealize(s: Stmt & { kind: "BlockRealize" }): void {
    for (const v of s.iterValues) this.visitExpr(v);
    this.visitExpr(s.predicate);
    const inner = s.block;
    const bindings = new Map<Var, PrimExpr>(inner.iterVars.map((iv, i) => [iv.var, s.iterValues[i]!]));
    const innerLocal = new Set(inner.allocBuffers);
    for (const [regions, table] of [
      [inner.reads, this.reads],
      [inner.writes, this.writes],
    ] as const) {
      for (const r of regions) {
        if (innerLocal.has(r.buffer)) continue;
        // A region of one of this block's match_buffer targets is one of its source (rule 4).
        if (this.matchSources.has(r.buffer)) {
          this.recordWhole(table, r.buffer);
          continue;
        }
        const dims = r.region.map((rg) => this.relaxRange(substituteRange(rg, bindings)));
        this.record(table, r.buffer, dims);
      }
    }
  }

  // -- expressions -----------------------------------------------------------------------------

  override visitExpr(e: PrimExpr): void {
    if (e.kind === "Let") {
      this.visitExpr(e.value);
      this.withLet(e.variable, e.value, () => this.visitExpr(e.body));
      return;
    }
    if (e.kind === "Call" && this.accessPointer(e)) return;
    super.visitExpr(e);
  }

  override visitVar(v: Var): void {
    if (v.dtype !== "handle") return;
    const buffer = this.bufferOfData?.(v);
    if (buffer !== undefined) this.recordWhole(this.opaque, buffer);
  }

  /** `T.tvm_access_ptr(..., A.data, ..., mask)` with a known buffer and constant mask; false otherwise. */
  private accessPointer(e: PrimExpr & { kind: "Call" }): boolean {
    const [, data, , , mask] = e.args;
    const buffer = e.op === "tvm_access_ptr" && data?.kind === "Var" ? this.bufferOfData?.(data) : undefined;
    if (buffer === undefined || mask?.kind !== "IntImm") return false;
    const reads = (mask.value & 1) !== 0;
    const writes = (mask.value & 2) !== 0;
    this.recordWhole(reads && writes ? this.opaque : reads ? this.reads : this.writes, buffer);
    return true;
  }

  override visitBufferLoad(e: PrimExpr & { kind: "BufferLoad" }): void {
    super.visitBufferLoad(e);
    this.recordIndices(this.reads, e.buffer, e.indices);
  }

  // -- helpers ---------------------------------------------------------------------------------

  private withLet(v: Var, value: PrimExpr, body: () => void): void {
    this.letValues.set(v, this.inlineLets(value));
    body();
    this.letValues.delete(v);
  }

  /** Replaces let-bound variables (statement lets in scope and Let expressions) by their values. */
  private inlineLets(e: PrimExpr): PrimExpr {
    const outer = this.letValues.size === 0 ? e : substitute(e, this.letValues);
    return new LetInliner().visitExpr(outer);
  }

  private relax(e: PrimExpr): IntervalSet {
    const inlined = this.inlineLets(e);
    // A data-dependent index may be anything: like TVM, cover the whole dimension.
    if (readsMemory(inlined)) return UNBOUNDED_INTERVAL;
    return evalSet(inlined, this.loopDomains, this.analyzer);
  }

  /** The values of one index; vector indices (Ramp, Broadcast) cover all their lanes. */
  private relaxIndex(e: PrimExpr): IntervalSet {
    if (e.kind === "Broadcast") return this.relaxIndex(e.value);
    if (e.kind === "Ramp") {
      const lane = variable("lane", e.base.dtype);
      this.loopDomains.set(lane, { min: intImm(0, e.base.dtype), max: intImm(e.lanes - 1, e.base.dtype) });
      const s = this.relax(add(e.base, mul(e.stride, lane)));
      this.loopDomains.delete(lane);
      return s;
    }
    return this.relax(e);
  }

  private relaxRange(r: Range): IntervalSet {
    return { min: this.relax(r.min).min, max: this.relax(sub(add(r.min, r.extent), 1)).max };
  }

  private recordIndices(table: AccessTable, buffer: Buffer, indices: readonly PrimExpr[]): void {
    const source = this.matchSources.get(buffer);
    if (source !== undefined) {
      this.record(
        table,
        source.buffer,
        source.region.map((r) => intervalFromRange(r, this.analyzer)),
      );
      return;
    }
    this.record(
      table,
      buffer,
      indices.map((i) => this.relaxIndex(i)),
    );
  }

  private recordWhole(table: AccessTable, buffer: Buffer): void {
    const source = this.matchSources.get(buffer);
    if (source !== undefined) {
      this.record(
        table,
        source.buffer,
        source.region.map((r) => intervalFromRange(r, this.analyzer)),
      );
      return;
    }
    const zero = (extent: PrimExpr): PrimExpr => intImm(0, extent.dtype);
    this.record(
      table,
      buffer,
      buffer.shape.map((extent) => ({ min: zero(extent), max: sub(extent, 1) })),
    );
  }

  private record(table: AccessTable, buffer: Buffer, dims: IntervalSet[]): void {
    if (this.localBuffers.has(buffer)) return;
    const previous = table.get(buffer);
    table.set(buffer, previous === undefined ? dims : previous.map((p, d) => unionIntervals(p, dims[d]!, this.analyzer)));
  }

  private toRegions(table: AccessTable): BufferRegion[] {
    return [...table].map(([buffer, dims]) => ({
      buffer,
      region: dims.map((s, d) => this.clampToShape(s, buffer.shape[d]!)),
    }));
  }

  /**
   * `[lo, hi]` → Range. Like TVM's `IntSet::CoverRange`, finite ends are kept as they are (a
   * stencil reads `A[vi - 1:vi + 2]`, not a clamped range); only an unbounded end falls back to
   * the buffer's own extent.
   */
  private clampToShape(s: IntervalSet, extent: PrimExpr): Range {
    const a = this.analyzer;
    const lo = s.min.kind === "NegInf" ? intImm(0, extent.dtype) : s.min;
    const hi = s.max.kind === "PosInf" ? a.simplify(sub(extent, 1)) : s.max;
    return { min: lo, extent: a.simplify(add(sub(hi, lo), 1)) };
  }
}

class LetInliner extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind !== "Let") return super.visitExpr(e);
    return this.visitExpr(substitute(e.body, (v) => (v === e.variable ? e.value : undefined)));
  }
}

function readsMemory(e: PrimExpr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.kind === "BufferLoad" || (x.kind === "Call" && intrinsicInfo(x.op)?.pure !== true)) found = true;
  });
  return found;
}

function substituteRange(r: Range, map: ReadonlyMap<Var, PrimExpr>): Range {
  return { min: substitute(r.min, map), extent: substitute(r.extent, map) };
}

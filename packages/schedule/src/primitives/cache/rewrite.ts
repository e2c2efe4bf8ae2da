/**
 * Rewriting the scope for cache_read / cache_write (TVM's `CacheReadRewriter` and
 * `CacheWriteRewriter`): switch the right blocks from the original buffer to the cache (bodies,
 * access regions, match_buffers), insert the copy stage at its location, and allocate the cache
 * in the scope block. With a compact cache, indices and regions are rebased by the cached
 * region's minimum.
 */
import {
  Analyzer,
  type Block,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
  type BufferStore,
  type For,
  IRMutator,
  type MatchBufferRegion,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  seq,
  sub,
} from "@tessera/ir";
import type { CacheLocation } from "./location.js";

export interface CacheRewrite {
  readonly scope: Block;
  /** The buffer blocks stop using. */
  readonly from: Buffer;
  /** The buffer they use instead. */
  readonly to: Buffer;
  /** The region of the original buffer the cache holds (its minimum rebases compact caches). */
  readonly region: BufferRegion;
  readonly fullShape: boolean;
  readonly loc: CacheLocation;
  readonly stage: Stmt;
  /** Blocks named by `consumer_blocks` (and the blocks nested in them). */
  readonly consumers: ReadonlySet<Block>;
}

/** Inserts `stage` at `pos` of a body (TVM's `InsertCacheStage`). */
function insertStage(body: Stmt, pos: number, stage: Stmt): Stmt {
  if (body.kind === "SeqStmt") return seq([...body.seq.slice(0, pos), stage, ...body.seq.slice(pos)]);
  return pos === 0 ? seq([stage, body]) : seq([body, stage]);
}

abstract class CacheRewriterBase extends IRMutator {
  private readonly analyzer = new Analyzer();

  constructor(protected readonly info: CacheRewrite) {
    super();
  }

  override visitFor(s: For): Stmt {
    const out = super.visitFor(s) as For;
    return s === this.info.loc.owner ? { ...out, body: insertStage(out.body, this.info.loc.pos, this.info.stage) } : out;
  }

  /** Inserts the stage into and allocates the cache in the scope/location blocks. */
  protected placeStage(original: Block, out: Block): Block {
    let b = out;
    if (original === this.info.loc.owner) b = { ...b, body: insertStage(b.body, this.info.loc.pos, this.info.stage) };
    if (original === this.info.scope) b = { ...b, allocBuffers: [...b.allocBuffers, this.info.to] };
    return b;
  }

  protected rebase(indices: readonly PrimExpr[]): PrimExpr[] {
    return indices.map((x, d) => this.shift(x, this.info.region.region[d]!.min));
  }

  private shift(x: PrimExpr, by: PrimExpr): PrimExpr {
    if (this.info.fullShape || (by.kind === "IntImm" && by.value === 0)) return x;
    return this.analyzer.simplify(sub(x, by));
  }

  private shiftRange(r: Range, d: number): Range {
    return { min: this.shift(r.min, this.info.region.region[d]!.min), extent: r.extent };
  }

  protected switchRegions(regions: readonly BufferRegion[]): readonly BufferRegion[] {
    if (!regions.some((r) => r.buffer === this.info.from)) return regions;
    return regions.map((r) => (r.buffer === this.info.from ? { buffer: this.info.to, region: r.region.map((x, d) => this.shiftRange(x, d)) } : r));
  }

  protected switchMatchBuffers(ms: readonly MatchBufferRegion[]): readonly MatchBufferRegion[] {
    if (!ms.some((m) => m.source.buffer === this.info.from)) return ms;
    return ms.map((m) => (m.source.buffer === this.info.from ? { ...m, source: this.switchRegions([m.source])[0]! } : m));
  }

  /** Opaque uses of the buffer's storage (`A.data` in `tvm_access_ptr`, intrinsic arguments). */
  protected switchData(v: Var): Var {
    return v === this.info.from.data ? this.info.to.data : v;
  }

  protected switchLoad(e: BufferLoad): PrimExpr {
    const indices = e.indices.map((i) => this.visitExpr(i));
    return { ...e, buffer: this.info.to, indices: this.rebase(indices) };
  }
}

/** cache_read: consumers read the cache; the writer of the original buffer is left alone. */
export class CacheReadRewriter extends CacheRewriterBase {
  private consuming = false;

  override visitBlock(b: Block): Block {
    const { scope, from, consumers } = this.info;
    if (b !== scope && b.writes.some((w) => w.buffer === from)) return b;
    const isConsumer = consumers.size === 0 || consumers.has(b);
    const saved = this.consuming;
    this.consuming = isConsumer;
    let out = super.visitBlock(b);
    this.consuming = saved;
    out = this.placeStage(b, out);
    if (b !== scope && isConsumer) {
      const reads = this.switchRegions(out.reads);
      const matchBuffers = this.switchMatchBuffers(out.matchBuffers);
      if (reads !== out.reads || matchBuffers !== out.matchBuffers) out = { ...out, reads, matchBuffers };
    }
    return out;
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    return e.buffer === this.info.from && this.consuming ? this.switchLoad(e) : super.visitBufferLoad(e);
  }

  override visitVar(v: Var): PrimExpr {
    return this.consuming ? this.switchData(v) : v;
  }
}

/** cache_write: the writer (and blocks nested in it) and the listed consumers use the cache. */
export class CacheWriteRewriter extends CacheRewriterBase {
  private underWriter = false;

  constructor(
    info: CacheRewrite,
    private readonly writer: Block,
  ) {
    super(info);
  }

  override visitBlock(b: Block): Block {
    const { scope, consumers } = this.info;
    if (consumers.has(b)) return this.switchBlock(b, { ...b, body: this.visitStmt(b.body) }, b);
    if (b !== this.writer && b !== scope && !this.underWriter) return b;
    const saved = this.underWriter;
    this.underWriter = saved || b === this.writer;
    let out = super.visitBlock(b);
    this.underWriter = saved;
    out = this.placeStage(b, out);
    return b === scope ? out : this.switchBlock(b, out, out);
  }

  /** `updated` with switched regions, or `unchanged` when no region mentions the buffer. */
  private switchBlock(b: Block, updated: Block, unchanged: Block): Block {
    const writes = this.switchRegions(b.writes);
    const reads = this.switchRegions(b.reads);
    const matchBuffers = this.switchMatchBuffers(b.matchBuffers);
    if (writes === b.writes && reads === b.reads && matchBuffers === b.matchBuffers) return unchanged;
    return { ...updated, writes, reads, matchBuffers };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const out = super.visitBufferStore(s) as BufferStore;
    return out.buffer === this.info.from ? { ...out, buffer: this.info.to, indices: this.rebase(out.indices) } : out;
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    return e.buffer === this.info.from ? this.switchLoad(e) : super.visitBufferLoad(e);
  }

  /** Only reached inside the writer and the consumers: other blocks are returned unvisited. */
  override visitVar(v: Var): PrimExpr {
    return this.switchData(v);
  }
}

/**
 * The rewriters behind compute-inline and reverse-compute-inline (TVM's BaseInliner family). One
 * pass over the scope root's subtree removes the inlined leaf block (per its removal plan),
 * rewrites the accesses of the inlined buffer, drops the buffer's allocation from the scope root,
 * recomputes the access regions of every other block that touched it, and notes opaque uses of
 * the buffer (its data pointer, or a match_buffer of it), which the caller then rejects.
 */
import {
  Analyzer,
  type Block,
  type BlockRealize,
  type Buffer,
  type BufferLoad,
  type BufferStore,
  type For,
  IRMutator,
  type PrimExpr,
  type Stmt,
  type Var,
  and,
  bufferLoad,
  ge,
  inferAccessRegions,
  lt,
  add,
  sameExprStructure,
  substitute,
} from "@tessera/ir";
import type { LeafRemovalPlan } from "../../analysis/leaf-block-removal.js";

abstract class BaseInliner extends IRMutator {
  /** Set when the buffer is used opaquely: its data pointer appears, or a block matches it. */
  hasOpaqueAccess = false;
  /**
   * Buffers by data pointer, from the signatures seen so far (TVM's `buffer_var_map_`): recomputed
   * regions then count opaque accesses such as `T.tvm_access_ptr(..., A.data, ..., mask)`.
   */
  private readonly bufferOfData = new Map<Var, Buffer>();

  constructor(
    protected readonly inlined: Buffer,
    private readonly removal: LeafRemovalPlan,
    private readonly scopeRoot: Block | undefined,
    inlinedBlock: Block,
  ) {
    super();
    this.noteSignature(inlinedBlock);
  }

  private noteSignature(b: Block): void {
    for (const r of [...b.reads, ...b.writes]) this.bufferOfData.set(r.buffer.data, r.buffer);
    for (const buffer of b.allocBuffers) this.bufferOfData.set(buffer.data, buffer);
  }

  override visitVar(v: Var): PrimExpr {
    if (v === this.inlined.data) this.hasOpaqueAccess = true;
    return v;
  }

  override visitFor(s: For): Stmt {
    return super.visitFor(s === this.removal.src ? (this.removal.tgt as For) : s);
  }

  override visitBlock(b: Block): Block {
    if (b.matchBuffers.some((m) => m.source.buffer === this.inlined)) this.hasOpaqueAccess = true;
    this.noteSignature(b);
    const source = b === this.removal.src ? (this.removal.tgt as Block) : b;
    return this.updateSignature(super.visitBlock(source), b === this.scopeRoot);
  }

  /** The scope root stops allocating the buffer; blocks that accessed it get fresh regions. */
  private updateSignature(b: Block, isScopeRoot: boolean): Block {
    if (isScopeRoot) {
      const allocBuffers = b.allocBuffers.filter((x) => x !== this.inlined);
      return allocBuffers.length === b.allocBuffers.length ? b : { ...b, allocBuffers };
    }
    const touches = (r: { buffer: Buffer }) => r.buffer === this.inlined;
    if (!b.reads.some(touches) && !b.writes.some(touches)) return b;
    const { reads, writes } = inferAccessRegions(b, { bufferOfData: (v) => this.bufferOfData.get(v) });
    return { ...b, reads, writes };
  }
}

/** compute-inline: each load of the buffer becomes the producer's value at the loaded indices. */
export class ComputeInliner extends BaseInliner {
  constructor(
    inlined: Buffer,
    removal: LeafRemovalPlan,
    scopeRoot: Block | undefined,
    inlinedBlock: Block,
    /** Index variables of the producer's store, and its value written in them. */
    private readonly indexVars: readonly Var[],
    private readonly value: PrimExpr,
  ) {
    super(inlined, removal, scopeRoot, inlinedBlock);
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const load = super.visitBufferLoad(e) as BufferLoad;
    if (load.buffer !== this.inlined) return load;
    const sub = new Map<Var, PrimExpr>(this.indexVars.map((v, k) => [v, load.indices[k]!]));
    return substitute(this.value, sub);
  }
}

export interface ReverseInlineInfo {
  /** The consumer's store `B[...] = g(..., A[...], ...)`. */
  readonly consumerStore: BufferStore;
  /** The consumer's iterators expressed in the producer's iterators. */
  readonly indexSub: ReadonlyMap<Var, PrimExpr>;
  /** `lo <= v < hi` for every consumer iterator: the producer then runs only where B is written. */
  readonly consumerInBound: PrimExpr;
  readonly producer: Block;
}

/** reverse-compute-inline: the producer's store of the buffer becomes the consumer's store. */
export class ReverseComputeInliner extends BaseInliner {
  constructor(
    inlined: Buffer,
    removal: LeafRemovalPlan,
    scopeRoot: Block | undefined,
    inlinedBlock: Block,
    private readonly info: ReverseInlineInfo,
  ) {
    super(inlined, removal, scopeRoot, inlinedBlock);
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const out = super.visitBlockRealize(s) as BlockRealize;
    return s.block === this.info.producer ? this.withConsumerPredicate(out) : out;
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const store = super.visitBufferStore(s) as BufferStore;
    if (store.buffer !== this.inlined) return store;
    const consumer = this.info.consumerStore;
    const viaIndex = (v: Var) => this.info.indexSub.get(v);
    // The producer's value may read the buffer itself (TVM's RecursionResolver): such reads now
    // read the consumer's output at the consumer's (remapped) indices.
    const selfRead = new LoadReplacer(this.inlined, undefined, viaIndex).visitExpr(bufferLoad(consumer.buffer, consumer.indices));
    const producerValue = new LoadReplacer(this.inlined, () => selfRead, viaIndex).visitExpr(store.value);
    // The consumer's store, in the producer's iterators, with its reads of the buffer replaced.
    return new LoadReplacer(this.inlined, () => producerValue, viaIndex).visitStmt(consumer);
  }

  /** The producer now only runs where the consumer's iterators are in their domains. */
  private withConsumerPredicate(realize: BlockRealize): BlockRealize {
    const analyzer = new Analyzer();
    const producer = realize.block;
    const bindings = new Map<Var, PrimExpr>();
    producer.iterVars.forEach((iv, k) => {
      bindings.set(iv.var, realize.iterValues[k]!);
      analyzer.bind(iv.var, iv.dom, true);
    });
    const inBound = substitute(this.info.consumerInBound, (v) => this.info.indexSub.get(v));
    // Proved by the linear simplifier first: it is faster, and bounds against symbolic extents
    // (`v < n` for v in [0, n)) are its own.
    if (isNonZeroConst(analyzer.simplify(inBound))) return realize;
    // TVM's Analyzer::Simplify on the producer's iterators, then again once bound to the loops:
    // the predicate keeps TVM's canonical order (`i0 * 16 + i1 < 127`).
    let predicate = analyzer.tvmSimplify(inBound);
    if (isNonZeroConst(predicate)) return realize;
    let block = producer;
    const body = producer.body;
    if (body.kind === "IfThenElse" && body.elseCase === undefined) {
      const condition = analyzer.tvmSimplify(body.condition);
      if (!sameExprStructure(predicate, condition)) {
        predicate = analyzer.tvmSimplify(and(predicate, body.condition));
        block = { ...producer, body: body.thenCase };
      }
    }
    return { ...realize, block, predicate: analyzer.tvmSimplify(substitute(predicate, bindings)) };
  }
}

function isNonZeroConst(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.value !== 0;
}

/** Replaces variables (by `vars`) and, when `load` is given, every load of `buffer` by `load()`. */
class LoadReplacer extends IRMutator {
  constructor(
    private readonly buffer: Buffer,
    private readonly load: (() => PrimExpr) | undefined,
    private readonly vars: (v: Var) => PrimExpr | undefined,
  ) {
    super();
  }
  override visitVar(v: Var): PrimExpr {
    return this.vars(v) ?? v;
  }
  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const out = super.visitBufferLoad(e) as BufferLoad;
    return out.buffer === this.buffer && this.load !== undefined ? this.load() : out;
  }
}

/** `min <= v && v < min + extent` over the given iterators. */
export function iterInBound(iters: readonly { var: Var; dom: { min: PrimExpr; extent: PrimExpr } }[]): PrimExpr | undefined {
  let result: PrimExpr | undefined;
  for (const iv of iters) {
    const c = and(ge(iv.var, iv.dom.min), lt(iv.var, add(iv.dom.min, iv.dom.extent)));
    result = result === undefined ? c : and(result, c);
  }
  return result;
}

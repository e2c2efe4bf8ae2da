/**
 * The tree of loops and blocks of a function body, with the position of every buffer access:
 * what planBufferAllocation needs to find the lowest common ancestor of a buffer's uses.
 */
import { type Block, type BlockRealize, type Buffer, type BufferLoad, type BufferStore, type For, IRVisitor, type Stmt, type Var, usesVar } from "@tessera/ir";

export interface ScopeNode {
  readonly stmt: For | Block;
  readonly parent: ScopeNode | undefined;
  readonly depth: number;
}

export interface AccessTree {
  /** The scope node of every loop and block, by node identity. */
  readonly nodes: ReadonlyMap<For | Block, ScopeNode>;
  /** For each tracked buffer, the innermost loop or block around each of its accesses. */
  readonly accesses: ReadonlyMap<Buffer, ScopeNode[]>;
  /** The block that allocates each tracked buffer. */
  readonly allocator: ReadonlyMap<Buffer, ScopeNode>;
  /**
   * For each buffer written by a reduction block, the outermost loop of each such reduction: the
   * accumulator lives across its iterations, so it must be allocated outside it.
   */
  readonly reductionLoops: ReadonlyMap<Buffer, ScopeNode[]>;
}

class AccessCollector extends IRVisitor {
  readonly nodes = new Map<For | Block, ScopeNode>();
  readonly accesses = new Map<Buffer, ScopeNode[]>();
  readonly allocator = new Map<Buffer, ScopeNode>();
  readonly reductionLoops = new Map<Buffer, ScopeNode[]>();
  private readonly byData = new Map<Var, Buffer>();
  private current: ScopeNode | undefined;

  private enter(stmt: For | Block, visit: () => void): void {
    const node: ScopeNode = { stmt, parent: this.current, depth: this.current === undefined ? 0 : this.current.depth + 1 };
    this.nodes.set(stmt, node);
    const outer = this.current;
    this.current = node;
    visit();
    this.current = outer;
  }

  private record(buffer: Buffer): void {
    const list = this.accesses.get(buffer);
    if (list !== undefined && this.current !== undefined) list.push(this.current);
  }

  override visitFor(s: For): void {
    this.enter(s, () => super.visitFor(s));
  }

  override visitBlockRealize(s: BlockRealize): void {
    // Bindings and predicate are evaluated outside the block.
    for (const v of s.iterValues) this.visitExpr(v);
    this.visitExpr(s.predicate);
    this.recordReduction(s);
    this.recordLoopCarried(s);
    this.enter(s.block, () => {
      for (const b of s.block.allocBuffers) {
        this.accesses.set(b, []);
        this.allocator.set(b, this.current!);
        this.byData.set(b.data, b);
      }
      this.visitBlock(s.block);
    });
  }

  /** The outermost loop around `s` whose variable feeds one of its reduce iterators. */
  private recordReduction(s: BlockRealize): void {
    const reduceBindings = s.block.iterVars.flatMap((iv, i) => (iv.iterType === "reduce" ? [s.iterValues[i]!] : []));
    if (reduceBindings.length === 0 || this.current === undefined) return;
    let outermost: ScopeNode | undefined;
    for (const a of ancestorsOf(this.current)) {
      const loop = a.stmt;
      if (loop.kind === "For" && reduceBindings.some((e) => usesVar(e, (v) => v === loop.loopVar))) outermost = a;
    }
    if (outermost === undefined) return;
    for (const w of s.block.writes) {
      const list = this.reductionLoops.get(w.buffer) ?? [];
      list.push(outermost);
      this.reductionLoops.set(w.buffer, list);
    }
  }

  /**
   * A block iterator that is neither spatial nor a reduction (`T.axis.opaque`) may carry values
   * across the loops its binding uses (`C[vj - 1]` read where `C[vj]` was written): the buffers the
   * block writes, and those of its regions indexed by the iterator, are placed outside those loops.
   */
  private recordLoopCarried(s: BlockRealize): void {
    if (this.current === undefined) return;
    const outside = new Map<Var, ScopeNode>();
    s.block.iterVars.forEach((iv, i) => {
      if (iv.iterType === "spatial" || iv.iterType === "reduce") return;
      let highest: ScopeNode | undefined;
      for (const a of ancestorsOf(this.current!)) {
        const loop = a.stmt;
        if (loop.kind === "For" && a.parent !== undefined && usesVar(s.iterValues[i]!, (v) => v === loop.loopVar)) highest = a.parent;
      }
      if (highest !== undefined) outside.set(iv.var, highest);
    });
    if (outside.size === 0) return;
    const at = (scope: ScopeNode, buffer: Buffer): void => {
      this.accesses.get(buffer)?.push(scope);
    };
    for (const w of s.block.writes) for (const scope of outside.values()) at(scope, w.buffer);
    for (const r of [...s.block.reads, ...s.block.writes]) {
      for (const [v, scope] of outside) {
        if (r.region.some((rg) => usesVar(rg.min, (x) => x === v) || usesVar(rg.extent, (x) => x === v))) at(scope, r.buffer);
      }
    }
  }

  override visitBlock(b: Block): void {
    for (const m of b.matchBuffers) this.record(m.source.buffer);
    super.visitBlock(b);
  }

  override visitBufferLoad(e: BufferLoad): void {
    this.record(e.buffer);
    super.visitBufferLoad(e);
  }

  override visitBufferStore(s: BufferStore): void {
    this.record(s.buffer);
    super.visitBufferStore(s);
  }

  /** An opaque use of a buffer's storage (e.g. a pointer passed to an intrinsic) is an access too. */
  override visitVar(v: Var): void {
    const buffer = this.byData.get(v);
    if (buffer !== undefined) this.record(buffer);
  }
}

/** Collects the scope tree and the accesses of every buffer allocated by a block. */
export function collectAccessTree(body: Stmt): AccessTree {
  const c = new AccessCollector();
  c.visitStmt(body);
  return { nodes: c.nodes, accesses: c.accesses, allocator: c.allocator, reductionLoops: c.reductionLoops };
}

export function lowestCommonAncestor(a: ScopeNode, b: ScopeNode): ScopeNode | undefined {
  let x: ScopeNode | undefined = a;
  let y: ScopeNode | undefined = b;
  while (x !== undefined && y !== undefined && x.depth > y.depth) x = x.parent;
  while (x !== undefined && y !== undefined && y.depth > x.depth) y = y.parent;
  while (x !== undefined && y !== undefined && x !== y) {
    x = x.parent;
    y = y.parent;
  }
  return x;
}

/** The node and its ancestors, innermost first. */
export function* ancestorsOf(node: ScopeNode): Generator<ScopeNode> {
  for (let p: ScopeNode | undefined = node; p !== undefined; p = p.parent) yield p;
}

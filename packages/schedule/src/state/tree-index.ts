/**
 * An index of the schedulable nodes (blocks and loops) of one PrimFunc: ids, parents, children,
 * scopes. It is rebuilt after every successful primitive, which is cheap for the program sizes a
 * schedule works on and keeps primitives free of bookkeeping.
 */
import { type Block, type BlockRealize, type For, type PrimFunc, type Stmt, printExpr } from "@tessera/ir";
import { assignFreshId, nodeIdOf } from "./node-ids.js";

export interface BlockEntry {
  readonly kind: "block";
  readonly id: number;
  readonly node: Block;
  readonly realize: BlockRealize;
  readonly parent: NodeEntry | undefined;
  readonly children: NodeEntry[];
}

export interface LoopEntry {
  readonly kind: "loop";
  readonly id: number;
  readonly node: For;
  readonly parent: NodeEntry | undefined;
  readonly children: NodeEntry[];
}

export type NodeEntry = BlockEntry | LoopEntry;

export class TreeIndexError extends Error {
  override name = "TreeIndexError";
}

export class TreeIndex {
  private readonly byId = new Map<number, NodeEntry>();
  private readonly byNode = new Map<Block | For, NodeEntry>();
  /** Every block in program (pre-)order. */
  readonly blocks: BlockEntry[] = [];
  readonly roots: NodeEntry[] = [];

  constructor(readonly func: PrimFunc) {
    this.walk(func.body, undefined);
  }

  entry(id: number): NodeEntry | undefined {
    return this.byId.get(id);
  }

  entryOf(node: Block | For): NodeEntry | undefined {
    return this.byNode.get(node);
  }

  blocksNamed(name: string): BlockEntry[] {
    return this.blocks.filter((b) => b.node.name === name);
  }

  /** The nearest enclosing block (the scope a node belongs to); undefined for the root block. */
  scopeOf(entry: NodeEntry): BlockEntry | undefined {
    for (let p = entry.parent; p !== undefined; p = p.parent) if (p.kind === "block") return p;
    return undefined;
  }

  /** The loops between `entry` and its scope block, outermost first. */
  loopsAbove(entry: NodeEntry): LoopEntry[] {
    const loops: LoopEntry[] = [];
    for (let p = entry.parent; p !== undefined && p.kind === "loop"; p = p.parent) loops.push(p);
    return loops.reverse();
  }

  /** Blocks directly under `entry` (not nested inside another block), in program order. */
  childBlocks(entry: NodeEntry): BlockEntry[] {
    const out: BlockEntry[] = [];
    const visit = (e: NodeEntry) => {
      for (const c of e.children) {
        if (c.kind === "block") out.push(c);
        else visit(c);
      }
    };
    visit(entry);
    return out;
  }

  /** Is `ancestor` a (strict) ancestor of `entry`? */
  isAncestor(ancestor: NodeEntry, entry: NodeEntry): boolean {
    for (let p = entry.parent; p !== undefined; p = p.parent) if (p === ancestor) return true;
    return false;
  }

  /** The lowest common ancestor of several entries (undefined when they only meet above the root). */
  lowestCommonAncestor(entries: readonly NodeEntry[]): NodeEntry | undefined {
    if (entries.length === 0) return undefined;
    const chain = (e: NodeEntry) => {
      const c: NodeEntry[] = [];
      for (let p: NodeEntry | undefined = e; p !== undefined; p = p.parent) c.push(p);
      return c.reverse();
    };
    let common = chain(entries[0]!);
    for (const e of entries.slice(1)) {
      const other = chain(e);
      let n = 0;
      while (n < common.length && n < other.length && common[n] === other[n]) n++;
      common = common.slice(0, n);
    }
    return common[common.length - 1];
  }

  private record(entry: NodeEntry): void {
    if (this.byId.has(entry.id)) {
      throw new TreeIndexError(`internal error: two nodes share schedule id ${entry.id} (a primitive duplicated code without stripIds)`);
    }
    this.byId.set(entry.id, entry);
    this.byNode.set(entry.node, entry);
    if (entry.parent) entry.parent.children.push(entry);
    else this.roots.push(entry);
  }

  private walk(s: Stmt, parent: NodeEntry | undefined): void {
    switch (s.kind) {
      case "For": {
        if (s.step !== undefined) {
          throw new TreeIndexError(
            `loop ${s.loopVar.name} has a step (${printExpr(s.step)}): schedule primitives work on unit-step loops (loop over i and use i * step + min)`,
          );
        }
        const entry: LoopEntry = { kind: "loop", id: idOf(s), node: s, parent, children: [] };
        this.record(entry);
        this.walk(s.body, entry);
        return;
      }
      case "BlockRealize": {
        const b = s.block;
        const entry: BlockEntry = { kind: "block", id: idOf(b), node: b, realize: s, parent, children: [] };
        this.record(entry);
        this.blocks.push(entry);
        if (b.init) this.walk(b.init, entry);
        this.walk(b.body, entry);
        return;
      }
      case "SeqStmt":
        for (const c of s.seq) this.walk(c, parent);
        return;
      case "IfThenElse":
        this.walk(s.thenCase, parent);
        if (s.elseCase) this.walk(s.elseCase, parent);
        return;
      case "While":
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt":
        this.walk(s.body, parent);
        return;
      case "BufferStore":
      case "Evaluate":
        return;
    }
  }
}

function idOf(node: Block | For): number {
  return nodeIdOf(node) ?? assignFreshId(node);
}

/**
 * Dependencies between the child blocks of a scope (TVM's SBlockScope): in program order, a block
 * that reads a buffer an earlier block wrote depends on it read-after-write (RAW); writes after
 * writes are WAW; writes after reads are WAR. Producers and consumers are the RAW edges.
 */
import type { Buffer } from "@tessera/ir";
import type { BlockEntry, NodeEntry, TreeIndex } from "../state/tree-index.js";

export type DependencyKind = "RAW" | "WAW" | "WAR";

export interface Dependency {
  readonly src: BlockEntry;
  readonly dst: BlockEntry;
  readonly kind: DependencyKind;
}

export class BlockScope {
  readonly children: BlockEntry[];
  readonly deps: Dependency[] = [];
  /** For each buffer, the child blocks that write it, in program order. */
  readonly writers = new Map<Buffer, BlockEntry[]>();

  constructor(
    readonly index: TreeIndex,
    /** The scope block, or undefined for a scope rooted at the function body. */
    readonly root: BlockEntry | undefined,
  ) {
    this.children = root === undefined ? index.blocks.filter((b) => index.scopeOf(b) === undefined) : index.childBlocks(root);
    const readers = new Map<Buffer, BlockEntry[]>();
    for (const blk of this.children) {
      for (const r of blk.node.reads) {
        for (const w of this.writers.get(r.buffer) ?? []) this.addDep(w, blk, "RAW");
      }
      for (const wr of blk.node.writes) {
        for (const w of this.writers.get(wr.buffer) ?? []) if (w !== blk) this.addDep(w, blk, "WAW");
        for (const r of readers.get(wr.buffer) ?? []) if (r !== blk) this.addDep(r, blk, "WAR");
      }
      for (const r of blk.node.reads) push(readers, r.buffer, blk);
      for (const w of blk.node.writes) push(this.writers, w.buffer, blk);
    }
  }

  producersOf(blk: BlockEntry): BlockEntry[] {
    return unique(this.deps.filter((d) => d.dst === blk && d.kind === "RAW").map((d) => d.src));
  }

  consumersOf(blk: BlockEntry): BlockEntry[] {
    return unique(this.deps.filter((d) => d.src === blk && d.kind === "RAW").map((d) => d.dst));
  }

  private addDep(src: BlockEntry, dst: BlockEntry, kind: DependencyKind): void {
    if (!this.deps.some((d) => d.src === src && d.dst === dst && d.kind === kind)) this.deps.push({ src, dst, kind });
  }
}

/** The scope a block belongs to (its nearest enclosing block). */
export function scopeOfBlock(index: TreeIndex, blk: NodeEntry): BlockScope {
  return new BlockScope(index, index.scopeOf(blk));
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else if (!list.includes(v)) list.push(v);
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

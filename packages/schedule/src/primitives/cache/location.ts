/**
 * Where a cache stage goes (TVM's `CacheLocDetector`). The scope block's body is walked in program
 * order; the stage is inserted into the innermost statement sequence that holds both the writer
 * block (before) and the first related block (after) — the consumers for cache_read, the
 * remaining consumers for cache_write — right before the subtree containing that related block.
 * Only blocks that are direct children of the scope are looked at as units.
 */
import type { Block, For, Stmt } from "@tessera/ir";
import type { BlockEntry, NodeEntry, TreeIndex } from "../../state/tree-index.js";

export interface CacheLocation {
  /** The loop or block whose body receives the stage. */
  readonly owner: For | Block;
  /** The position in that body's statement sequence. */
  readonly pos: number;
}

/** TVM's detection: `writer` may be undefined (a function input), then only the related blocks matter. */
export function detectCacheLocation(scope: Block, writer: Block | undefined, related: readonly Block[]): CacheLocation {
  if (related.length === 0) {
    // Nothing must see the stage first: append it to the scope body.
    return { owner: scope, pos: scope.body.kind === "SeqStmt" ? scope.body.seq.length : 1 };
  }
  const d = new Detector(scope, writer, new Set(related));
  d.visitBlock(scope);
  return { owner: d.owner ?? scope, pos: d.pos === -1 ? 0 : d.pos };
}

class Detector {
  private visitedWriter = false;
  private visitedRelated = false;
  owner: For | Block | undefined;
  pos = -1;

  constructor(
    private readonly scope: Block,
    private readonly writer: Block | undefined,
    private readonly related: ReadonlySet<Block>,
  ) {}

  visitBlock(b: Block): void {
    if (b === this.scope) {
      if (b.init) this.visit(b.init);
      this.visit(b.body);
      if (this.visitedRelated && this.owner === undefined) {
        this.owner = b;
        // A function input (no writer seen): the stage goes first.
        if (!this.visitedWriter && this.pos === -1) this.pos = 0;
      }
      return;
    }
    if (b === this.writer) this.visitedWriter = true;
    else if (this.related.has(b)) this.visitedRelated = true;
  }

  private visit(s: Stmt): void {
    switch (s.kind) {
      case "SeqStmt": {
        const before = this.visitedWriter;
        this.visitedWriter = false;
        for (let i = 0; i < s.seq.length && this.pos === -1; i++) {
          this.visit(s.seq[i]!);
          if (this.visitedWriter && this.visitedRelated && this.pos === -1) {
            this.pos = i;
            break;
          }
          if (this.visitedRelated) break;
        }
        this.visitedWriter = this.visitedWriter || before;
        return;
      }
      case "For":
        this.visit(s.body);
        if (this.visitedWriter && this.visitedRelated && this.owner === undefined && this.pos !== -1) this.owner = s;
        return;
      case "BlockRealize":
        this.visitBlock(s.block);
        return;
      case "IfThenElse":
        this.visit(s.thenCase);
        if (s.elseCase) this.visit(s.elseCase);
        return;
      case "While":
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt":
        this.visit(s.body);
        return;
      case "BufferStore":
      case "Evaluate":
        return;
    }
  }
}

/** The index entry of a location's owner. */
export function ownerEntry(index: TreeIndex, loc: CacheLocation): NodeEntry {
  const e = index.entryOf(loc.owner);
  if (e === undefined) throw new Error("internal error: the cache location is not in the schedule's tree");
  return e;
}

/** Does every child block of the scope that reads `buffer` lie under `owner`? (TVM's `AllConsumersUnderStmt`.) */
export function allReadersUnder(index: TreeIndex, scopeChildren: readonly BlockEntry[], buffer: object, owner: NodeEntry): boolean {
  return scopeChildren.filter((b) => b.node.reads.some((r) => r.buffer === buffer)).every((b) => index.isAncestor(owner, b));
}

/**
 * Rewrites a function body by node identity: each `For`, `BlockRealize` or `Block` found in the
 * map is replaced by its image (or removed when the image is `REMOVE`). Untouched parts are shared,
 * and ids of surviving ancestors are kept because the mutator copies them with object spread.
 *
 * Given the tree index of a function that holds every replaced node, the rewrite only walks the
 * paths from the root to those nodes (TVM's schedule state replaces along the sref path): a loop
 * or block the index knows and that is not on such a path holds no replaced node, since the IR is
 * immutable and the index saw its whole subtree. Without an index, or when a replaced node is not
 * in it, every statement is visited.
 */
import { type Block, type BlockRealize, type For, type Stmt, seq } from "@tessera/ir";
import { StatementMutator } from "./statement-mutator.js";
import type { NodeEntry, TreeIndex } from "./tree-index.js";

export const REMOVE = Symbol("remove");

export type Replacement = Stmt | typeof REMOVE;

export class StmtReplacer extends StatementMutator {
  /** The loops and blocks on the paths to the replaced nodes; undefined: walk everything. */
  private readonly onPath: ReadonlySet<For | Block> | undefined;

  constructor(
    private readonly stmts: ReadonlyMap<Stmt, Replacement>,
    private readonly blocks: ReadonlyMap<Block, Block> = new Map(),
    private readonly index?: TreeIndex,
  ) {
    super();
    this.onPath = index === undefined ? undefined : pathsTo(index, stmts, blocks);
  }

  override visitStmt(s: Stmt): Stmt {
    const image = this.stmts.get(s);
    if (image !== undefined) {
      if (image === REMOVE) throw new Error("internal error: REMOVE outside a statement sequence");
      return image;
    }
    if (this.holdsNoReplacedNode(s)) return s;
    if (s.kind === "SeqStmt") {
      const kept: Stmt[] = [];
      let changed = false;
      for (const c of s.seq) {
        const img = this.stmts.get(c);
        if (img === REMOVE) {
          changed = true;
          continue;
        }
        const out = this.visitStmt(c);
        if (out !== c) changed = true;
        kept.push(out);
      }
      if (!changed) return s;
      if (kept.length === 0) throw new Error("internal error: a statement sequence became empty");
      return seq(kept);
    }
    return super.visitStmt(s);
  }

  override visitBlock(b: Block): Block {
    const image = this.blocks.get(b);
    return image ?? super.visitBlock(b);
  }

  /** A loop or block realize of the index that is off every path to a replaced node. */
  private holdsNoReplacedNode(s: Stmt): boolean {
    const onPath = this.onPath;
    if (onPath === undefined) return false;
    if (s.kind === "For") return !onPath.has(s) && this.index!.entryOf(s) !== undefined;
    if (s.kind === "BlockRealize") return !onPath.has(s.block) && realizeOf(this.index!, s.block) === s;
    return false;
  }
}

/** The realize `index` saw around `block`, if it saw the block. */
function realizeOf(index: TreeIndex, block: Block): BlockRealize | undefined {
  const entry = index.entryOf(block);
  return entry?.kind === "block" ? entry.realize : undefined;
}

/**
 * Every loop and block from the root down to each replaced node (the node included), or undefined
 * when a replaced node is not one the index knows (then nothing can be skipped).
 */
function pathsTo(index: TreeIndex, stmts: ReadonlyMap<Stmt, Replacement>, blocks: ReadonlyMap<Block, Block>): Set<For | Block> | undefined {
  const onPath = new Set<For | Block>();
  const addPath = (entry: NodeEntry): void => {
    for (let e: NodeEntry | undefined = entry; e !== undefined && !onPath.has(e.node); e = e.parent) onPath.add(e.node);
  };
  for (const s of stmts.keys()) {
    let entry: NodeEntry | undefined;
    if (s.kind === "For") entry = index.entryOf(s);
    else if (s.kind === "BlockRealize" && realizeOf(index, s.block) === s) entry = index.entryOf(s.block);
    if (entry === undefined) return undefined;
    addPath(entry);
  }
  for (const b of blocks.keys()) {
    const entry = index.entryOf(b);
    if (entry === undefined) return undefined;
    addPath(entry);
  }
  return onPath;
}

/**
 * Replaces statements (by identity) in `body`. `index`, a tree index of a function holding the
 * replaced nodes (the schedule's current one, usually), lets the rewrite skip the subtrees that
 * hold none of them.
 */
export function replaceStmts(body: Stmt, stmts: ReadonlyMap<Stmt, Replacement>, blocks?: ReadonlyMap<Block, Block>, index?: TreeIndex): Stmt {
  return new StmtReplacer(stmts, blocks, index).visitStmt(body);
}

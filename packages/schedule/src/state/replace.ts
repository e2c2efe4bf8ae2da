/**
 * Rewrites a function body by node identity: each `For`, `BlockRealize` or `Block` found in the
 * map is replaced by its image (or removed when the image is `REMOVE`). Untouched parts are shared,
 * and ids of surviving ancestors are kept because the mutator copies them with object spread.
 */
import { type Block, type Stmt, seq } from "@tessera/ir";
import { StatementMutator } from "./statement-mutator.js";

export const REMOVE = Symbol("remove");

export type Replacement = Stmt | typeof REMOVE;

export class StmtReplacer extends StatementMutator {
  constructor(
    private readonly stmts: ReadonlyMap<Stmt, Replacement>,
    private readonly blocks: ReadonlyMap<Block, Block> = new Map(),
  ) {
    super();
  }

  override visitStmt(s: Stmt): Stmt {
    const image = this.stmts.get(s);
    if (image !== undefined) {
      if (image === REMOVE) throw new Error("internal error: REMOVE outside a statement sequence");
      return image;
    }
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
}

/** Replaces statements (by identity) in `body`. */
export function replaceStmts(body: Stmt, stmts: ReadonlyMap<Stmt, Replacement>, blocks?: ReadonlyMap<Block, Block>): Stmt {
  return new StmtReplacer(stmts, blocks).visitStmt(body);
}

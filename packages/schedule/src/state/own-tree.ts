/**
 * Gives a schedule its own copy of every block and loop of a function, each with a fresh id, so
 * that tagging never touches IR objects the caller still holds.
 */
import type { Block, For, PrimFunc, Stmt } from "@tessera/ir";
import { cloneWithFreshId } from "./node-ids.js";
import { StatementMutator } from "./statement-mutator.js";

class Owner extends StatementMutator {
  override visitFor(s: For): Stmt {
    const out = super.visitFor(s) as For;
    return cloneWithFreshId(out);
  }
  override visitBlock(b: Block): Block {
    return cloneWithFreshId(super.visitBlock(b));
  }
}

export function ownTree(func: PrimFunc): PrimFunc {
  return { ...func, body: new Owner().visitStmt(func.body) };
}

/** Preconditions shared by the passes that need earlier passes to have run. */
import { type Stmt, forEachStmt } from "@tessera/ir";
import { LoweringError } from "../errors.js";

/** Throws when a block still has iterators (convertBlocksToOpaque has not run). */
export function requireOpaqueBlocks(pass: string, body: Stmt): void {
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize" && s.block.iterVars.length > 0) {
      throw new LoweringError(pass, `block ${s.block.name} still has iterators: run convertBlocksToOpaque first`);
    }
  });
}

/** Throws when a block remains (lowerOpaqueBlock has not run). */
export function requireNoBlocks(pass: string, body: Stmt): void {
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize") {
      throw new LoweringError(pass, `block ${s.block.name} remains: run lowerOpaqueBlock first`);
    }
  });
}

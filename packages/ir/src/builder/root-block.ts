/**
 * The implicit root block. TVM's parser (and `te.create_prim_func`) wrap a function body in a
 * block named "root" with no iterators when the body contains blocks or the function allocates
 * buffers; the allocations become the root block's `alloc_buffers`, its reads/writes stay empty.
 */
import type { Buffer } from "../buffer.js";
import { forEachStmt } from "../functor.js";
import { type Stmt, block, blockRealize } from "../stmt.js";

export const ROOT_BLOCK_NAME = "root";

export function containsBlock(body: Stmt): boolean {
  let found = false;
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize") found = true;
  });
  return found;
}

/** Is `body` already a root block realize (no iterators), as when the author wrote it by hand? */
function isRootRealize(body: Stmt): boolean {
  return body.kind === "BlockRealize" && body.block.iterVars.length === 0;
}

/** Wraps `body` in the root block when TVM's parser would. */
export function withRootBlock(body: Stmt, rootAllocs: readonly Buffer[]): Stmt {
  if (rootAllocs.length === 0 && (!containsBlock(body) || isRootRealize(body))) return body;
  const root = block({ name: ROOT_BLOCK_NAME, body, allocBuffers: rootAllocs });
  return blockRealize([], true, root);
}

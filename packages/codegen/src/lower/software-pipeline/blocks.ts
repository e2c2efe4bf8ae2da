/**
 * The blocks TVM's InjectSoftwarePipeline wraps its output in (its MakeSBlock): every section
 * (prologue, body, epilogue) and every commit group is an opaque block with inferred read and
 * write regions, and each statement instance that is a block carries its bounds check as the
 * block's predicate. lowerOpaqueBlock later turns predicates into `if`s and drops the blocks.
 */
import { type Block, type BlockRealize, type PrimExpr, type Stmt, and, block, blockRealize, evaluate, inferAccessRegions } from "@tessera/ir";
import { guarded, isConstTrue } from "../util/conditions.js";

/**
 * `body` as a block: the block of an unpredicated realize as is, else a new one, with inferred
 * regions where `withRegions` (the lowering pipeline's pass leaves them out: no later pass reads
 * them, and inferring them is a large part of the pass's time).
 */
export function makeBlock(body: Stmt, withRegions = true): Block {
  if (body.kind === "BlockRealize" && isConstTrue(body.predicate) && body.block.iterVars.length === 0) return body.block;
  const holder = block({ name: "", body });
  if (!withRegions) return holder;
  const { reads, writes } = inferAccessRegions(holder);
  return { ...holder, reads, writes };
}

export function realizeBlock(body: Stmt, withRegions = true): BlockRealize {
  return blockRealize([], true, makeBlock(body, withRegions));
}

/** The empty section: `T.evaluate(0)` in a block without regions. */
export function noOpBlock(): BlockRealize {
  return blockRealize([], true, block({ name: "", body: evaluate(0) }));
}

/** `stmt` run only where `predicate` holds: as the predicate of a block, else as an `if`. */
export function predicated(predicate: PrimExpr, stmt: Stmt): Stmt {
  if (isConstTrue(predicate) || stmt.kind !== "BlockRealize") return guarded(predicate, stmt);
  const combined = isConstTrue(stmt.predicate) ? predicate : and(stmt.predicate, predicate);
  return { ...stmt, predicate: combined };
}

/** `wrap` applied inside a block statement's body (where TVM places wait scopes), else around the statement. */
export function wrapBody(stmt: Stmt, wrap: (body: Stmt) => Stmt): Stmt {
  if (stmt.kind !== "BlockRealize") return wrap(stmt);
  return { ...stmt, block: { ...stmt.block, body: wrap(stmt.block.body) } };
}

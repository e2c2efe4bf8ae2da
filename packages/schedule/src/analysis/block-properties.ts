/**
 * The block properties TVM's primitives check (notes §1.8):
 * - complete: every iterator data-parallel, the block is the only writer of its outputs in the
 *   scope, and it reads no buffer it writes;
 * - reduction: has `init`, affine bindings, only S/R iterators, only writer of its outputs, and no
 *   reduction iterator indexes an output buffer;
 * - output: writes a buffer that the scope block does not allocate.
 */
import { type PrimExpr, type Range, type Var, forEachExpr } from "@tessera/ir";
import { isTVMAffineBinding } from "./affine-binding.js";
import { LoopNestMemo } from "../state/loop-nest-memo.js";
import type { BlockEntry, TreeIndex } from "../state/tree-index.js";
import type { BlockScope } from "./scope.js";

export function isDominant(scope: BlockScope, blk: BlockEntry): boolean {
  return blk.node.writes.every((w) => (scope.writers.get(w.buffer) ?? []).every((b) => b === blk));
}

export function isCompleteBlock(scope: BlockScope, blk: BlockEntry): boolean {
  const b = blk.node;
  if (!b.iterVars.every((iv) => iv.iterType === "spatial")) return false;
  if (!isDominant(scope, blk)) return false;
  const written = new Set(b.writes.map((w) => w.buffer));
  return !b.reads.some((r) => written.has(r.buffer));
}

export function isReductionBlock(index: TreeIndex, scope: BlockScope, blk: BlockEntry): boolean {
  const b = blk.node;
  if (b.init === undefined) return false;
  if (!hasAffineBinding(index, blk)) return false;
  if (!b.iterVars.every((iv) => iv.iterType === "spatial" || iv.iterType === "reduce")) return false;
  if (!isDominant(scope, blk)) return false;
  const reduceVars = new Set<Var>(b.iterVars.filter((iv) => iv.iterType === "reduce").map((iv) => iv.var));
  return b.writes.every((w) => w.region.every((r) => !mentions(r.min, reduceVars) && !mentions(r.extent, reduceVars)));
}

export function isOutputBlock(scope: BlockScope, blk: BlockEntry): boolean {
  const allocated = new Set(scope.root?.node.allocBuffers ?? []);
  return blk.node.writes.some((w) => !allocated.has(w.buffer));
}

/** Affine-binding answers by block realize and loop bounds (see LoopNestMemo). */
export const affineBindingMemo = new LoopNestMemo<undefined, boolean>(4);

/** Are the block's bindings a (quasi-)affine map of the loops between it and its scope? */
export function hasAffineBinding(index: TreeIndex, blk: BlockEntry): boolean {
  if (blk.realize.iterValues.length === 0) return true;
  const loops = index.loopsAbove(blk).map((l) => l.node);
  return affineBindingMemo.get(blk.realize, loops, undefined, () => {
    const domains = new Map<Var, Range>();
    for (const l of loops) domains.set(l.loopVar, { min: l.min, extent: l.extent });
    return isTVMAffineBinding(blk.realize.iterValues, domains, blk.realize.predicate);
  });
}

function mentions(e: PrimExpr, vars: ReadonlySet<Var>): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.kind === "Var" && vars.has(x)) found = true;
  });
  return found;
}

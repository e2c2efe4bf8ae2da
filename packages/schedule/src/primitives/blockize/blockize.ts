/**
 * blockize (TVM's `Blockize` of a loop): the subtree under a loop becomes the body of a new outer
 * block `<name>_o` whose iterators range over the outer subspace of the single block below, while
 * that block keeps the inner subspace. A reduction's init moves into the outer block's init.
 */
import { type Block, type BlockRealize, type For, type Stmt, block as makeBlock, blockRealize } from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError } from "../../errors.js";
import { NonSingleChildBlockError, nameOf } from "../../analysis/schedule-checks.js";
import { replaceStmts } from "../../state/replace.js";
import type { LoopEntry } from "../../state/tree-index.js";
import { deriveIterators, outerInit, relaxOverInner, substituteBlock } from "./outer-block.js";
import { divideSubspace } from "./subspace.js";

export const BLOCKIZE = "blockize";

/** The block's bindings mix the loops above and below the blockized loop in a way that cannot be split. */
export class SubspaceNotDivisibleError extends ScheduleError {
  override name = "SubspaceNotDivisibleError";
  constructor(primitive: string, loop: For | Block, blk: Block) {
    super(primitive, `The bindings of the inner block ${nameOf(blk)} can not be blockized by the loops starting at ${nameOf(loop)}.`, [blk, loop]);
  }
}

/** The outer block realize that replaces `loop`, built as TVM's `BlockizeImpl`. */
export function blockizeLoop(ctx: PrimitiveContext, loop: LoopEntry, preserveUnitIters: boolean, primitive = BLOCKIZE): BlockRealize {
  const { index } = ctx;
  const children = index.childBlocks(loop);
  if (children.length !== 1) throw new NonSingleChildBlockError(primitive, loop.node);
  const blk = children[0]!;
  const allLoops = index.loopsAbove(blk).map((l) => l.node);
  const at = allLoops.indexOf(loop.node);
  const outerLoops = allLoops.slice(0, at);
  const innerLoops = allLoops.slice(at);
  const division = divideSubspace(blk.realize, outerLoops, innerLoops, preserveUnitIters);
  if (division === undefined) throw new SubspaceNotDivisibleError(primitive, loop.node, blk.node);

  const derived = deriveIterators(blk.node.iterVars, division.bindings, preserveUnitIters);
  const substituted = substituteBlock(blk.node, derived);
  const hasOuterReduction = substituted.init !== undefined && derived.outerIters.some((iv) => iv.iterType === "reduce");
  const innerBlock: Block = {
    ...substituted,
    iterVars: derived.innerIters,
    init: undefined,
    reads: hasOuterReduction ? [...substituted.writes, ...substituted.reads] : substituted.reads,
  };
  const inner = blockRealize(derived.innerBindings, division.innerPredicate, innerBlock);
  const innermostFirst = [...innerLoops].reverse();
  const body = innermostFirst.reduce<Stmt>((stmt, l) => ({ ...l, body: stmt }), inner);
  const outerBlock = makeBlock({
    name: `${blk.node.name}_o`,
    iterVars: derived.outerIters,
    reads: relaxOverInner(substituted.reads, derived.innerIters),
    writes: relaxOverInner(substituted.writes, derived.innerIters),
    body,
    init: substituted.init === undefined ? undefined : outerInit(substituted.init, inner, innermostFirst, `${blk.node.name}_init`),
  });
  return blockRealize(derived.outerBindings, division.outerPredicate, outerBlock);
}

/** Blockizes `loop` in place and returns the new outer block as committed. */
export function blockize(ctx: PrimitiveContext, loop: LoopEntry, preserveUnitIters: boolean): Block {
  const outer = blockizeLoop(ctx, loop, preserveUnitIters);
  ctx.commit(replaceStmts(ctx.func.body, new Map([[loop.node, outer]]), undefined, ctx.index));
  return outer.block;
}

/** Precondition checks of compute-at / reverse-compute-at, in TVM's order. */
import { type Analyzer, type Block, type BlockRealize, type Stmt, forEachStmt } from "@tessera/ir";
import { completeBlockErrorCode, reductionBlockErrorCode } from "../../analysis/schedule-checks.js";
import type { BlockScope } from "../../analysis/scope.js";
import type { BlockEntry, LoopEntry, TreeIndex } from "../../state/tree-index.js";
import {
  InsertionPointNotFoundError,
  InvalidInsertionIndexError,
  NotAllRequiredBlocksAreVisitedError,
  NotCompleteOrReductionBlockError,
  NotInSameScopeError,
} from "./errors.js";

export function checkCompleteOrReductionBlock(primitive: string, index: TreeIndex, scope: BlockScope, blk: BlockEntry): void {
  const complete = completeBlockErrorCode(scope, blk);
  if (complete === 0) return;
  const reduction = reductionBlockErrorCode(index, scope, blk);
  if (reduction === 0) return;
  throw new NotCompleteOrReductionBlockError(primitive, blk.node, complete, reduction);
}

/**
 * The loop must sit in the block's scope (only loops between it and the scope block) and must not
 * enclose the block. Binds the domains of the loop and of its ancestors in `analyzer`.
 */
export function checkSameScopeAndBindLoops(primitive: string, blk: BlockEntry, loop: LoopEntry, scopeRoot: BlockEntry, analyzer: Analyzer): void {
  for (let p: LoopEntry["parent"] = loop; p !== scopeRoot; p = p.parent) {
    if (p === undefined || p.kind !== "loop") throw new NotInSameScopeError(primitive, blk.node, loop.node);
    analyzer.bind(p.node.loopVar, { min: p.node.min, extent: p.node.extent }, true);
  }
  for (let p = blk.parent; p !== undefined && p !== scopeRoot; p = p.parent) {
    if (p === loop) throw new NotInSameScopeError(primitive, blk.node, loop.node);
  }
}

/** The statements of a loop body (a sequence's items, or the single statement). */
export function subtreesOf(body: Stmt): readonly Stmt[] {
  return body.kind === "SeqStmt" ? body.seq : [body];
}

/**
 * Where the moved block goes among the target loop's subtrees: after the last subtree holding a
 * producer and no later than the first holding a consumer. `index` -1 picks the latest valid
 * position, -2 the earliest, otherwise it must itself be valid.
 */
export function findInsertionPoint(
  primitive: string,
  subtrees: readonly Stmt[],
  producers: readonly BlockEntry[],
  consumers: readonly BlockEntry[],
  requireAllProducers: boolean,
  requireAllConsumers: boolean,
  position: number,
): number {
  const producerSet = new Set<Block>(producers.map((b) => b.node));
  const consumerSet = new Set<Block>(consumers.map((b) => b.node));
  let lastProducer = -1;
  let firstConsumer = subtrees.length;
  let producersSeen = 0;
  let consumersSeen = 0;
  subtrees.forEach((s, i) => {
    for (const b of blocksAtTop(s)) {
      if (producerSet.has(b.block)) {
        producersSeen++;
        lastProducer = i;
      }
      if (consumerSet.has(b.block)) {
        consumersSeen++;
        if (firstConsumer === subtrees.length) firstConsumer = i;
      }
    }
  });
  if (lastProducer >= firstConsumer) throw new InsertionPointNotFoundError(primitive, lastProducer, firstConsumer);
  if (requireAllProducers && producersSeen < producers.length) {
    throw new NotAllRequiredBlocksAreVisitedError(
      primitive,
      false,
      producers.length - producersSeen,
      producers.map((b) => b.node),
    );
  }
  if (requireAllConsumers && consumersSeen < consumers.length) {
    throw new NotAllRequiredBlocksAreVisitedError(
      primitive,
      true,
      consumers.length - consumersSeen,
      consumers.map((b) => b.node),
    );
  }
  if (position === -1) return firstConsumer;
  if (position === -2) return lastProducer + 1;
  if (position >= 0 && position >= lastProducer + 1 && position <= firstConsumer) return position;
  throw new InvalidInsertionIndexError(primitive, lastProducer + 1, firstConsumer, position);
}

/** Block realizes in a subtree, not descending into blocks. */
function blocksAtTop(s: Stmt): BlockRealize[] {
  const out: BlockRealize[] = [];
  forEachStmt(s, (x) => {
    if (x.kind !== "BlockRealize") return true;
    out.push(x);
    return false;
  });
  return out;
}

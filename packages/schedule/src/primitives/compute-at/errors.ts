/** The errors of compute-at / reverse-compute-at (TVM's classes, same conditions and wording). */
import type { Block, For } from "@tessera/ir";
import { ScheduleError } from "../../errors.js";

export class NotCompleteOrReductionBlockError extends ScheduleError {
  override name = "NotCompleteOrReductionBlockError";
  constructor(primitive: string, blk: Block, completeCode: number, reductionCode: number) {
    super(
      primitive,
      `Not a complete or reduction block: the block ${blk.name} is not a complete block - it violates condition #${completeCode}.\n` +
        "Definition of a complete block:\n" +
        "1) All block vars are data parallel\n" +
        "2) Dominant: the block is the only writer of its output, dominating the reader of its output buffers\n" +
        "3) No overlap between the buffers the block reads and writes\n" +
        `The block is not a reduction block either - it violates condition #${reductionCode}.\n` +
        "Definition of a reduction block:\n" +
        "1) The block has the `init` statement\n" +
        "2) All the block bindings are quasi-affine expressions\n" +
        "3) All block vars are either data parallel block vars or reduction block vars\n" +
        "4) Dominant: the block is the only writer of its output, dominating the reader of its output buffers\n" +
        "5) The reduction block vars are not used to index the output buffers",
      [blk],
    );
  }
}

export class NotInSameScopeError extends ScheduleError {
  override name = "NotInSameScopeError";
  constructor(primitive: string, blk: Block, loop: For) {
    super(
      primitive,
      `Expected the block ${blk.name} and loop ${loop.loopVar.name} to be under the same block scope, and loop not to be the ancestor of block`,
      [blk, loop],
    );
  }
}

export class OutputBlockError extends ScheduleError {
  override name = "OutputBlockError";
  constructor(primitive: string, blk: Block) {
    super(primitive, `Cannot operate on an output block: the block ${blk.name} is an output block`, [blk]);
  }
}

export class NotAllRequiredBlocksAreVisitedError extends ScheduleError {
  override name = "NotAllRequiredBlocksAreVisitedError";
  constructor(primitive: string, isConsumer: boolean, numNotVisited: number, required: readonly Block[]) {
    const relation = isConsumer ? "consumer(s)" : "producer(s)";
    super(
      primitive,
      `Not all required blocks are under the loop scope: the primitive requires all the ${relation} of the given block ` +
        `to be present under the target loop. However, there are ${numNotVisited} ${relation} not satisfying the ` +
        `constraint. List of the ${relation}: ${required.map((b) => b.name).join(", ")}`,
      required,
    );
  }
}

export class InsertionPointNotFoundError extends ScheduleError {
  override name = "InsertionPointNotFoundError";
  constructor(primitive: string, lastProducer: number, firstConsumer: number) {
    super(
      primitive,
      "Cannot find the insertion point that satisfies the producer-consumer constraint. In 0-based indexing, " +
        `the last producer appears in subtree ${lastProducer}, and the first consumer appears in subtree ${firstConsumer}`,
    );
  }
}

/** An explicit `index` outside the valid insertion positions (an InternalError in TVM). */
export class InvalidInsertionIndexError extends ScheduleError {
  override name = "InvalidInsertionIndexError";
  constructor(primitive: string, lo: number, hi: number, index: number) {
    super(primitive, `Valid index:(-1, -2, [${lo}, ${hi}]), current index=${index}`);
  }
}

/** The provided region could not be matched to the block's iterators (a ValueError in TVM). */
export class BufferRegionPatternError extends ScheduleError {
  override name = "BufferRegionPatternError";
}

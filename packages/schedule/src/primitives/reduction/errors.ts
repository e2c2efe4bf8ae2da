/** The errors of decompose-reduction and rfactor (TVM's classes, conditions and wording). */
import type { Block, Buffer, For } from "@tessera/ir";
import { ScheduleError } from "../../errors.js";
import { nameOf } from "../../analysis/schedule-checks.js";

export class LoopPositionError extends ScheduleError {
  override name = "LoopPositionError";
  constructor(primitive: string, loop: For, blk: Block) {
    super(
      primitive,
      `ScheduleError: The input loop ${nameOf(loop)} of ${primitive.replace(/-/g, "_")} is required to be an ancestor of block ${nameOf(blk)}.`,
      [loop, blk],
    );
  }
}

export class LoopHeightError extends ScheduleError {
  override name = "LoopHeightError";
  constructor(primitive: string, loop: For, blk: Block) {
    super(
      primitive,
      `ScheduleError: decompose_reduction expect the loop ${nameOf(loop)} to be higher than all the loops related to reduce block var of block ${nameOf(blk)}`,
      [loop, blk],
    );
  }
}

export class NotSerialLoopKindError extends ScheduleError {
  override name = "NotSerialLoopKindError";
  constructor(primitive: string, loop: For) {
    // TVM's ForKind2String spellings.
    const kind = loop.forKind === "unrolled" ? "unroll" : loop.forKind;
    super(
      primitive,
      `ScheduleError: The input loop ${nameOf(loop)} of rfactor is required to be \`Serial\`. However, the kind of ${nameOf(loop)} is \`${kind}\``,
      [loop],
    );
  }
}

export class FactorAxisOutOfRangeError extends ScheduleError {
  override name = "FactorAxisOutOfRangeError";
  constructor(primitive: string, buffer: Buffer, factorAxis: number) {
    const ndim = buffer.shape.length;
    super(
      primitive,
      `The write buffer ${buffer.name} has ${ndim} dimension(s), so \`factor_axis\` is required to be in [${-(ndim + 1)}, ${ndim}] for rfactor. However, the input \`factor_axis\` is ${factorAxis}, which is out of the expected range`,
    );
  }
}

export type LoopPropertyViolation = "dataParTouchesRFactorLoop" | "touchedByBothKinds" | "notFirstChildOfOutermost" | "unboundLoopUnderReduction";

const LOOP_PROPERTY_MESSAGES: Record<LoopPropertyViolation, (loop: string) => string> = {
  dataParTouchesRFactorLoop: (l) =>
    `The loop to be applied rfactor is ${l}, which is required not to be touched by any data parallel block iter of the block below. However, some of the block's data parallel block iters touch this loop`,
  touchedByBothKinds: (l) => `It is not allowed that the loop ${l} is touched by both some data parallel block iters and some reduction block iters`,
  notFirstChildOfOutermost: (l) => `The first child block of the outermost loop ${l} is not the reduction block.`,
  unboundLoopUnderReduction: (l) =>
    `The loop ${l} has extent greater than one, and is not bound to any block iter. Therefore it shouldn't appear under a reduction loop`,
};

export class LoopPropertyError extends ScheduleError {
  override name = "LoopPropertyError";
  constructor(
    primitive: string,
    loop: For,
    readonly violation: LoopPropertyViolation,
  ) {
    super(primitive, LOOP_PROPERTY_MESSAGES[violation](nameOf(loop)), [loop]);
  }
}

/**
 * The rfactor block would bind the reduction loops one by one while its predicate bounds them
 * fused (`k_0 * 10 + k_1 < 128`): not an affine binding. TVM fails on this too (in its
 * post-primitive verification, with an internal error); we report it before changing anything.
 */
export class RFactorPredicateError extends ScheduleError {
  override name = "RFactorPredicateError";
  constructor(primitive: string, blk: Block, predicate: string) {
    super(
      primitive,
      `The block ${nameOf(blk)} has the predicate ${predicate}, which bounds loops that its rfactor block would bind separately; rfactor cannot give that block an affine binding. Split the reduction loop with factors that divide its extent.`,
      [blk],
    );
  }
}

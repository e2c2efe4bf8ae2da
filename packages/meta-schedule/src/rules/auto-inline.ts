/**
 * TVM's AutoInline: a spatial block is inlined into its consumers (compute_inline) when it can
 * be, else into its single complete producer (reverse_compute_inline); and InlineConstantScalars:
 * a block that writes a scalar constant is inlined into its consumers. Whether a primitive applies
 * is decided by the primitive itself (it leaves the schedule unchanged when it refuses).
 */
import { ScheduleError, type BlockRV, type Schedule } from "@tessera/schedule";
import { type Block, forEachExpr, forEachStmt } from "@tessera/ir";
import type { TuneContext } from "../tune-context.js";
import { isSpatialBlock } from "../schedule-utils/block-info.js";
import { TILING_STRUCTURE } from "../schedule-utils/annotations.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";

export interface AutoInlineOptions {
  readonly intoProducer: boolean;
  readonly intoConsumer: boolean;
  /** Inline blocks that read nothing (constant tensors) whatever else holds. */
  readonly inlineConstTensor: boolean;
  /** Only blocks without if-then-else in their body (TVM's disallow_if_then_else). */
  readonly disallowIfThenElse: boolean;
}

export class AutoInline implements ScheduleRule {
  readonly name = "autoInline";
  constructor(readonly options: AutoInlineOptions) {}

  apply(sch: Schedule, block: BlockRV, _ctx: TuneContext): Schedule[] {
    const node = sch.get(block);
    if (node.name === "root" || !isSpatialBlock(node) || node.writes.length !== 1) return [sch];
    if (node.annotations[TILING_STRUCTURE] !== undefined) return [sch];
    const constTensor = this.options.inlineConstTensor && node.reads.length === 0;
    if (!constTensor && this.options.disallowIfThenElse && hasIfThenElse(node)) return [sch];
    if ((this.options.intoConsumer || constTensor) && sch.getConsumers(block).length > 0 && attempt(() => sch.computeInline(block))) return [sch];
    if (this.options.intoProducer) {
      const producers = sch.getProducers(block);
      if (producers.length === 1 && isCompleteSpatial(sch.get(producers[0]))) attempt(() => sch.reverseComputeInline(block));
    }
    return [sch];
  }
}

/** TVM's InlineConstantScalars: blocks writing a constant scalar are inlined into their consumers. */
export class InlineConstantScalars implements ScheduleRule {
  readonly name = "inlineConstantScalars";
  apply(sch: Schedule, block: BlockRV, _ctx: TuneContext): Schedule[] {
    const node = sch.get(block);
    const scalar = node.writes.length === 1 && node.writes[0]!.buffer.shape.length === 0;
    if (scalar && node.reads.length === 0 && node.body.kind === "BufferStore" && node.body.value.kind !== "BufferLoad") {
      attempt(() => sch.computeInline(block));
    }
    return [sch];
  }
}

/** Runs a primitive; false when it refused (the schedule is then unchanged). */
function attempt(f: () => void): boolean {
  try {
    f();
    return true;
  } catch (err) {
    if (err instanceof ScheduleError) return false;
    throw err;
  }
}

function isCompleteSpatial(block: Block): boolean {
  return isSpatialBlock(block) && block.init === undefined;
}

function hasIfThenElse(block: Block): boolean {
  let found = false;
  forEachStmt(block.body, (s) => {
    if (s.kind === "IfThenElse") found = true;
  });
  forEachExpr(block.body, (e) => {
    if (e.kind === "Call" && e.op.endsWith("if_then_else")) found = true;
  });
  return found;
}

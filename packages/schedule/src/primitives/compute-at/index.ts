/**
 * compute_at / reverse_compute_at: move a producer under a loop of its consumers (or a consumer
 * under a loop of its producers), regenerating a loop nest `ax0, ax1, …` that computes exactly the
 * region needed there. `canComputeAt` / `canReverseComputeAt` run the same checks without
 * committing (used by sampleComputeLocation). The special loop marks of sampleComputeLocation are
 * understood: `LoopRV.ROOT` leaves the block where it is, `LoopRV.INLINE` inlines it.
 */
import { ScheduleUsageError } from "../../errors.js";
import { BlockRV, LoopRV } from "../../handles.js";
import { type InstructionAttr, type InstructionInput, type InstructionKind, instructionKind, registerInstruction, renderInput } from "../../instruction.js";
import type { PrimitiveContext } from "../../context.js";
import { TesseraError } from "@tessera/ir";
import type { BlockEntry, LoopEntry } from "../../state/tree-index.js";
import { computeAtImpl } from "./impl.js";

export * from "./errors.js";

function check(ctx: PrimitiveContext, isComputeAt: boolean, block: BlockEntry | BlockRV, loop: LoopEntry | LoopRV, preserveUnitLoops: boolean): boolean {
  const primitive = isComputeAt ? "compute-at" : "reverse-compute-at";
  try {
    const blk = block instanceof BlockRV ? ctx.block(block, primitive) : block;
    const lp = loop instanceof LoopRV ? ctx.loop(loop, primitive) : loop;
    computeAtImpl(ctx, { isComputeAt, block: blk, loop: lp, preserveUnitLoops, index: -1, checkOnly: true });
    return true;
  } catch (e) {
    if (e instanceof TesseraError) return false;
    throw e;
  }
}

/** Whether `computeAt(block, loop, preserveUnitLoops)` would succeed (nothing is changed). */
export function canComputeAt(ctx: PrimitiveContext, block: BlockEntry | BlockRV, loop: LoopEntry | LoopRV, preserveUnitLoops: boolean): boolean {
  return check(ctx, true, block, loop, preserveUnitLoops);
}

/** Whether `reverseComputeAt(block, loop, preserveUnitLoops)` would succeed (nothing is changed). */
export function canReverseComputeAt(ctx: PrimitiveContext, block: BlockEntry | BlockRV, loop: LoopEntry | LoopRV, preserveUnitLoops: boolean): boolean {
  return check(ctx, false, block, loop, preserveUnitLoops);
}

function makeKind(name: string, method: string, isComputeAt: boolean): InstructionKind {
  const primitive = isComputeAt ? "compute-at" : "reverse-compute-at";
  return registerInstruction({
    name,
    method,
    pure: false,
    singleOutput: false,
    attrNames: ["preserve_unit_loops", "index"],
    apply(ctx, inputs: readonly InstructionInput[], attrs: readonly InstructionAttr[]) {
      const [blockRV, loopRV] = inputs;
      const preserveUnitLoops = attrs[0] === true || attrs[0] === 1;
      const index = attrs[1] ?? -1;
      if (typeof index !== "number" || !Number.isInteger(index)) {
        throw new ScheduleUsageError(primitive, `index must be an integer, got ${String(index)}`);
      }
      if (loopRV instanceof LoopRV && loopRV.isRootMark) return { outputs: [] };
      if (loopRV instanceof LoopRV && loopRV.isInlineMark) {
        const inlineKind = instructionKind(isComputeAt ? "ComputeInline" : "ReverseComputeInline");
        if (inlineKind === undefined) throw new ScheduleUsageError(primitive, "compute-inline is not available");
        inlineKind.apply(ctx, [blockRV ?? null], [], undefined);
        return { outputs: [] };
      }
      const loop = ctx.loop(loopRV, primitive);
      const blk = ctx.block(blockRV, primitive);
      computeAtImpl(ctx, { isComputeAt, block: blk, loop, preserveUnitLoops, index, checkOnly: false });
      return { outputs: [] };
    },
    formatArgs(inputs, attrs) {
      const preserve = attrs[0] === true || attrs[0] === 1;
      const index = attrs[1] ?? -1;
      const extra = index !== -1 ? `, ${String(preserve)}, ${String(index)}` : preserve ? ", true" : "";
      return `${renderInput(inputs[0]!)}, ${renderInput(inputs[1]!)}${extra}`;
    },
  });
}

export const COMPUTE_AT = makeKind("ComputeAt", "computeAt", true);
export const REVERSE_COMPUTE_AT = makeKind("ReverseComputeAt", "reverseComputeAt", false);

/**
 * An inlined check: the block is gone (reverseComputeInline fused it into the block that produces
 * its input). Whether that is the write-back, and where the write-back runs, are task 4's checks:
 * judged here, a task-4 mistake would cost task 5 too.
 */
import type { Check } from "../manifest/index.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";

type InlinedCheck = Extract<Check, { kind: "inlined" }>;

export function inlinedCheck(check: InlinedCheck, ctx: CheckContext): CheckOutcome {
  if (ctx.view.blocks.has(check.block)) {
    return fail(`the block "${check.block}" still exists: inline it into the write-back of "${check.into.writeStageOf}" with reverseComputeInline`);
  }
  return pass;
}

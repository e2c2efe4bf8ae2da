/** An inlined check: the block is gone, fused into the write-back of the producer's cache stage. */
import type { Check } from "../manifest/index.js";
import { requireBlock } from "./block-site.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { writeStage } from "./stages.js";

type InlinedCheck = Extract<Check, { kind: "inlined" }>;

export function inlinedCheck(check: InlinedCheck, ctx: CheckContext): CheckOutcome {
  const { view } = ctx;
  if (view.blocks.has(check.block)) return fail(`the block "${check.block}" still exists: inline it with reverseComputeInline`);
  const producer = requireBlock(view, check.into.writeStageOf);
  if (typeof producer === "string") return fail(producer);
  const stage = writeStage(view, producer, "", check.into.scope);
  if (stage?.writeBack === undefined) return fail(`"${check.into.writeStageOf}" has no ${check.into.scope} write stage to fuse "${check.block}" into`);
  const writesOutput = stage.writeBack.block.writes.some((w) => view.params.includes(w.buffer));
  if (!writesOutput) return fail(`the write-back block "${stage.writeBack.block.name}" does not write the function's output`);
  return pass;
}

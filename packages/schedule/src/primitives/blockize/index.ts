/**
 * The Blockize instruction (TVM's `Blockize`: one input, a loop or a list of blocks, and the
 * attribute `preserve_unit_iters`); returns the new outer block.
 */
import { ScheduleUsageError } from "../../errors.js";
import { type InstructionAttr, registerInstruction, renderInput } from "../../instruction.js";
import { BLOCKIZE, blockize } from "./blockize.js";
import { blockizeBlocks } from "./blocks.js";

export { SubspaceNotDivisibleError, blockizeLoop } from "./blockize.js";
export { BlockizeBlocksError } from "./blocks.js";

/** Reads a `preserve_unit_iters` attribute (TVM writes it as 0/1, we as a boolean). */
export function preserveUnitItersAttr(primitive: string, attr: InstructionAttr | undefined): boolean {
  if (attr === undefined || attr === true || attr === 1) return true;
  if (attr === false || attr === 0) return false;
  throw new ScheduleUsageError(primitive, `preserve_unit_iters must be a boolean, got ${JSON.stringify(attr)}`);
}

/** `, { preserveUnitIters: false }` when the attribute is not the default. */
export function formatPreserveUnitIters(attr: InstructionAttr | undefined): string {
  return attr === false || attr === 0 ? ", { preserveUnitIters: false }" : "";
}

registerInstruction({
  name: "Blockize",
  method: "blockize",
  pure: false,
  singleOutput: true,
  attrNames: ["preserve_unit_iters"],
  apply(ctx, inputs, attrs) {
    const preserve = preserveUnitItersAttr(BLOCKIZE, attrs[0]);
    const target = inputs[0];
    if (Array.isArray(target)) {
      if (target.length === 0) throw new ScheduleUsageError(BLOCKIZE, "blockize needs a loop or at least one block");
      const blocks = target.map((b, i) => ctx.block(b, BLOCKIZE, `target[${i}]`));
      return { outputs: [ctx.committedBlockRV(blockizeBlocks(ctx, blocks, preserve))] };
    }
    const loop = ctx.loop(target, BLOCKIZE, "target");
    return { outputs: [ctx.committedBlockRV(blockize(ctx, loop, preserve))] };
  },
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}${formatPreserveUnitIters(attrs[0])}`,
});

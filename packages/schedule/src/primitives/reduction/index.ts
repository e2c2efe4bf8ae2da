/**
 * Reduction primitives: decomposeReduction (returns the `<name>_init` block) and rfactor (returns
 * the `<name>_rf` block). The algorithms live in `reduction-decompose.ts` / `reduction-rfactor.ts`.
 */
import { ScheduleUsageError } from "../../errors.js";
import { registerInstruction, renderInput, tsLiteral } from "../../instruction.js";
import { decomposeReduction } from "./decompose.js";
import { rfactor } from "./rfactor.js";

registerInstruction({
  name: "DecomposeReduction",
  method: "decomposeReduction",
  pure: false,
  singleOutput: true,
  attrNames: [],
  apply(ctx, inputs) {
    const blk = ctx.block(inputs[0], "decompose-reduction");
    const loop = ctx.loop(inputs[1], "decompose-reduction");
    return { outputs: [ctx.committedBlockRV(decomposeReduction(ctx, blk, loop))] };
  },
  formatArgs: (inputs) => `${renderInput(inputs[0]!)}, ${renderInput(inputs[1]!)}`,
});

registerInstruction({
  name: "RFactor",
  method: "rfactor",
  pure: false,
  singleOutput: true,
  attrNames: ["factor_axis"],
  apply(ctx, inputs, attrs) {
    const loop = ctx.loop(inputs[0], "rfactor");
    const factorAxis = attrs[0];
    if (typeof factorAxis !== "number" || !Number.isInteger(factorAxis)) {
      throw new ScheduleUsageError("rfactor", `factor_axis must be an integer, got ${String(factorAxis)}`);
    }
    return { outputs: [ctx.committedBlockRV(rfactor(ctx, loop, factorAxis))] };
  },
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}`,
});

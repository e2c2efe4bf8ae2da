/** Runs a pipeline's passes in order for one target, keeping the IR after each when asked. */
import type { PrimFunc } from "@tessera/ir";
import type { PassStage } from "../lowered.js";
import { LoweringError } from "./errors.js";
import { type Pass, type PassContext, passRunsFor } from "./pass.js";

export interface PassRun {
  readonly func: PrimFunc;
  readonly stages: PassStage[];
}

export function runPasses(passes: readonly Pass[], func: PrimFunc, ctx: PassContext, recordStages: boolean): PassRun {
  const stages: PassStage[] = [];
  let current = func;
  for (const pass of passes) {
    if (!passRunsFor(pass, ctx.target.kind)) {
      throw new LoweringError(pass.name, `is not a pass for ${ctx.target.kind} targets (target "${ctx.target.name}")`);
    }
    current = pass.run(current, ctx);
    if (recordStages) stages.push({ pass: pass.name, func: current });
  }
  return { func: current, stages };
}

/**
 * Interprets the manifest's structural checks on a scheduled function (the trusted replay of a
 * student's trace). Each check tests one point of its task and fails with feedback in the
 * student's terms: what was expected, what the program has instead. Loops are matched by role
 * (axis and level), never by extents an earlier mistake changed, so one mistake fails one check.
 */
import type { Check } from "../manifest/index.js";
import { bindingsCheck } from "./bindings.js";
import { cacheStageCheck } from "./cache-stage.js";
import { cooperativeFetchCheck } from "./cooperative-fetch.js";
import { inlinedCheck } from "./inlined.js";
import { loopOrderCheck } from "./loop-order.js";
import type { CheckContext, CheckOutcome } from "./outcome.js";
import { returnedStagesCheck } from "./returned-stages.js";
import { splitCheck } from "./split.js";

export type { CheckContext, CheckOutcome } from "./outcome.js";

export type StructuralCheck = Exclude<Check, { kind: "numerics" | "trace-replays" | "tuned-time" }>;

export function isStructural(check: Check): check is StructuralCheck {
  return check.kind !== "numerics" && check.kind !== "trace-replays" && check.kind !== "tuned-time";
}

export function runStructuralCheck(check: StructuralCheck, ctx: CheckContext): CheckOutcome {
  switch (check.kind) {
    case "split":
      return splitCheck(check, ctx);
    case "bindings":
      return bindingsCheck(check, ctx);
    case "loop-order":
      return loopOrderCheck(check, ctx);
    case "cache-stage":
      return cacheStageCheck(check, ctx);
    case "returned-stages":
      return returnedStagesCheck(check, ctx);
    case "cooperative-fetch":
      return cooperativeFetchCheck(check, ctx);
    case "inlined":
      return inlinedCheck(check, ctx);
  }
}

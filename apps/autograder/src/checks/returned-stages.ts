/** A returned-stages check: the task returns its copy stages in the handout's order (task 3 receives them). */
import type { Check } from "../manifest/index.js";
import { requireBlock } from "./block-site.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { readStage } from "./stages.js";

type ReturnedStagesCheck = Extract<Check, { kind: "returned-stages" }>;

export function returnedStagesCheck(check: ReturnedStagesCheck, ctx: CheckContext): CheckOutcome {
  const of = requireBlock(ctx.view, check.of);
  if (typeof of === "string") return fail(of);
  // A buffer without such a stage is the cache-stage check's mistake, not this one's.
  const expected = check.stages.map((s) => readStage(ctx.view, of, s.buffer, s.scope)?.block.name);
  if (expected.every((name) => name === undefined)) return pass;
  const returned = ctx.returnedBlocks ?? [];
  const ok = expected.every((name, n) => name === undefined || returned[n] === name);
  if (ok) return pass;
  const fn = ctx.functionName ?? "the task";
  const wanted = check.stages.map((s, n) => `${s.buffer}'s ${s.scope} copy${expected[n] === undefined ? "" : ` (${expected[n]})`}`).join(", ");
  const got = returned.length === 0 ? "no blocks" : `[${returned.join(", ")}]`;
  return fail(`${fn} returned ${got}; return [${wanted}] in this order (check which cacheRead copies which buffer: its read index picks it)`);
}

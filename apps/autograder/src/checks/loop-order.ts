/** A loop-order check: groups of loops (by role), every loop of a group outside every loop of the later groups. */
import type { For } from "@tessera/ir";
import type { Check, LoopRole } from "../manifest/index.js";
import { requireBlock } from "./block-site.js";
import { listLoops, roleLoops } from "./loop-roles.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { describeRoleLoop } from "./program-view.js";

type LoopOrderCheck = Extract<Check, { kind: "loop-order" }>;

export function loopOrderCheck(check: LoopOrderCheck, ctx: CheckContext): CheckOutcome {
  const s = requireBlock(ctx.view, check.block);
  if (typeof s === "string") return fail(s);
  const groups = check.groups.map((roles) => roles.flatMap((role) => roleLoops(s, role).map((loop) => ({ role, loop }))));
  const position = (loop: For): number => s.loops.indexOf(loop);
  for (const [g, outer] of groups.entries()) {
    for (const inner of groups.slice(g + 1)) {
      for (const a of outer) {
        const b = inner.find((x) => position(x.loop) < position(a.loop));
        if (b !== undefined) return fail(misordered(a, b, check, listLoops(s.loops)));
      }
    }
  }
  return pass;
}

function misordered(a: { role: LoopRole; loop: For }, b: { role: LoopRole; loop: For }, check: LoopOrderCheck, loops: string): string {
  const wanted = check.groups.map((g) => uniqueNames(g).join(" and ")).join(", then ");
  return `${describeRoleLoop(a.role.name, a.loop)} should be outside ${describeRoleLoop(b.role.name, b.loop)}: reorder to ${wanted}; the loops around "${check.block}" are now ${loops}`;
}

function uniqueNames(roles: readonly LoopRole[]): string[] {
  return [...new Set(roles.map((r) => r.name))];
}

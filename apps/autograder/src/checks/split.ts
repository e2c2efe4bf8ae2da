/** A split check: the loops over an axis were split so that the loops inside some split point cover `factor` iterations. */
import type { Check } from "../manifest/index.js";
import { resolveSize } from "../manifest/index.js";
import { requireBlock } from "./block-site.js";
import { axisLoops, listLoops, product } from "./loop-roles.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { constExtent } from "./program-view.js";

type SplitCheck = Extract<Check, { kind: "split" }>;

export function splitCheck(check: SplitCheck, ctx: CheckContext): CheckOutcome {
  const s = requireBlock(ctx.view, check.block);
  if (typeof s === "string") return fail(s);
  const loops = axisLoops(s, check.axis);
  const want = resolveSize(check.factor, ctx.tiles);
  if (loops.length < 2) return fail(`the ${check.axis} loop of "${check.block}" is not split (its loops: ${listLoops(loops)}): split it into tiles of ${want}`);
  // The loops inside some split point cover exactly `want` iterations: robust to a later task
  // splitting the inner loop again, and to an earlier split of another size.
  const extents = loops.map((l) => constExtent(l) ?? Number.NaN);
  const inner = extents.map((_, k) => product(extents.slice(k))).slice(1);
  if (inner.includes(want)) return pass;
  return fail(`the ${check.axis} loop of "${check.block}" is split into tiles of ${inner.join(" and ")}, not ${want} (its loops: ${listLoops(loops)})`);
}

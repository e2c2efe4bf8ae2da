/**
 * A cache-stage check: `of` reads (cacheRead) or writes (cacheWrite) a buffer through a copy in a
 * scope, and the copy is computed at the loop the task asks for (computeAt / reverseComputeAt).
 */
import type { Check } from "../manifest/index.js";
import { attachLoop, describeAttachPoint, describeAttachment, wantedAttachLoop } from "./attach-point.js";
import { requireBlock } from "./block-site.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { type BlockSite, describeRoleLoop } from "./program-view.js";
import { readStage, writeStage } from "./stages.js";

type CacheStageCheck = Extract<Check, { kind: "cache-stage" }>;

const SCOPES = ["shared", "local"] as const;

export function cacheStageCheck(check: CacheStageCheck, ctx: CheckContext): CheckOutcome {
  const of = requireBlock(ctx.view, check.of);
  if (typeof of === "string") return fail(of);
  const found = findStage(check, ctx, of);
  if (typeof found === "string") return fail(found);
  if (check.at === undefined) return pass;
  const wanted = check.at.flatMap((point) => {
    const loop = wantedAttachLoop(of, point);
    return loop === undefined ? [] : [{ point, loop }];
  });
  // No such loop (e.g. no thread loop yet): the check of the task that makes it names that.
  if (wanted.length === 0) return pass;
  const at = attachLoop(found, of);
  if (wanted.some((w) => w.loop === at)) return pass;
  const how = check.direction === "read" ? "computeAt" : "reverseComputeAt";
  const first = wanted[0]!;
  return fail(
    `the ${check.scope === undefined ? "" : `${check.scope} `}stage "${found.block.name}" is computed ${describeAttachment(at, check.of)}: move it under ${describeRoleLoop(describeAttachPoint(first.point), first.loop)} with ${how}`,
  );
}

/** The stage, or why there is none: missing, not written back, or in the other scope (named as such). */
function findStage(check: CacheStageCheck, ctx: CheckContext, of: BlockSite): BlockSite | string {
  const scopes = check.scope === undefined ? SCOPES : [check.scope];
  let why: string | undefined;
  for (const scope of scopes) {
    const found = stageIn(check, ctx, of, scope);
    if (typeof found !== "string") return found;
    why ??= found;
  }
  const primitive = check.direction === "read" ? "cacheRead" : "cacheWrite";
  const other = SCOPES.find((s) => check.scope !== undefined && s !== check.scope && typeof stageIn(check, ctx, of, s) !== "string");
  if (other !== undefined) {
    return `"${check.of}" ${check.direction === "read" ? "reads" : "writes"} ${check.buffer} through a ${other} copy, not a ${check.scope} one: give ${primitive} the scope "${check.scope}"`;
  }
  if (why !== undefined && why !== "") return why;
  return check.direction === "read"
    ? `"${check.of}" does not read ${check.buffer} through a ${check.scope ?? "cache"} copy (${primitive})`
    : `"${check.of}" does not write ${check.buffer} into ${check.scope ?? "a cache"}${check.scope === undefined ? "" : " memory"} (${primitive})`;
}

/** The copy stage in `scope`; "" when there is none, or why a write stage has no write-back. */
function stageIn(check: CacheStageCheck, ctx: CheckContext, of: BlockSite, scope: string): BlockSite | string {
  if (check.direction === "read") return readStage(ctx.view, of, check.buffer, scope) ?? "";
  const w = writeStage(ctx.view, of, check.buffer, scope);
  if (w === undefined) return "";
  return w.writeBack ?? `nothing writes ${w.cache} back`;
}

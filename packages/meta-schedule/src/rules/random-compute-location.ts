/**
 * RandomComputeLocation (TVM's `ScheduleRule::RandomComputeLocation`, CPU): a block directly in
 * the root's scope, untiled, with a consumer and an outermost loop of its own, is computed at a
 * sampled location (`sampleComputeLocation` → `computeAt(…, preserveUnitLoops = true)`), which
 * MutateComputeLocation later moves. (TVM also relocates a producer marked by AddRFactor; we have
 * no AddRFactor yet.)
 */
import { type Stmt, forEachStmt } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";
import { hasBeenMultiLevelTiled, isRootBlock, loopNodesAbove } from "../schedule-utils/block-info.js";
import type { ScheduleRule } from "./schedule-rule.js";

export function randomComputeLocation(): ScheduleRule {
  return {
    name: "randomComputeLocation",
    apply(sch: Schedule, block: BlockRV): Schedule[] {
      if (!applies(sch, block)) return [sch];
      sch.computeAt(block, sch.sampleComputeLocation(block), true);
      return [sch];
    },
  };
}

function applies(sch: Schedule, block: BlockRV): boolean {
  if (isRootBlock(sch, block)) return false;
  const node = sch.get(block);
  if (!rootScopeBlocks(sch.func.body).includes(node.name)) return false;
  const outermost = loopNodesAbove(sch, block)[0];
  if (outermost === undefined || childBlockCount(outermost.body) > 1) return false;
  if (hasBeenMultiLevelTiled(node)) return false;
  return sch.getConsumers(block).length > 0;
}

/** Names of the blocks whose scope is the root block. */
function rootScopeBlocks(body: Stmt): string[] {
  const names: string[] = [];
  forEachStmt(body, (s) => {
    if (s === body) return undefined;
    if (s.kind !== "BlockRealize") return undefined;
    names.push(s.block.name);
    return false;
  });
  return names;
}

/** Blocks directly under a statement (not nested in other blocks). */
function childBlockCount(s: Stmt): number {
  let n = 0;
  forEachStmt(s, (t) => {
    if (t.kind !== "BlockRealize") return undefined;
    n++;
    return false;
  });
  return n;
}

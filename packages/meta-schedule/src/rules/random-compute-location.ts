/**
 * RandomComputeLocation (TVM's `ScheduleRule::RandomComputeLocation`, CPU): a block directly in
 * the root's scope, untiled, with a consumer and an outermost loop of its own, is computed at a
 * sampled location (`sampleComputeLocation` → `computeAt(…, preserveUnitLoops = true)`), which
 * MutateComputeLocation later moves. A block AddRFactor marked has its producer (the rfactor
 * block) placed the same way, after it.
 */
import { type Stmt, forEachStmt } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";
import { hasBeenMultiLevelTiled, isRootBlock, loopNodesAbove } from "../schedule-utils/block-info.js";
import { RANDOM_COMPUTE_PRODUCER_KEY } from "./add-rfactor.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";

export function randomComputeLocation(): ScheduleRule {
  return {
    name: "randomComputeLocation",
    apply(sch: Schedule, block: BlockRV): Schedule[] {
      if (!applies(sch, block)) return [sch];
      // Looked up first: a block computed inline is gone afterwards.
      let producer: BlockRV | undefined;
      if (sch.get(block).annotations[RANDOM_COMPUTE_PRODUCER_KEY] !== undefined) {
        const producers = sch.getProducers(block);
        sch.unannotate(block, RANDOM_COMPUTE_PRODUCER_KEY);
        if (producers.length === 1) producer = producers[0];
      }
      sch.computeAt(block, sch.sampleComputeLocation(block), true);
      if (producer !== undefined) sch.computeAt(producer, sch.sampleComputeLocation(producer), true);
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

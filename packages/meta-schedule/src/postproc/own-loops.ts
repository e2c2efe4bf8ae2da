/**
 * The loops that belong to one block alone: the innermost loops above it that contain no other
 * block (a copy block's own loops after computeAt, as opposed to the loops it shares).
 */
import { forEachStmt } from "@tessera/ir";
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";

export function ownLoops(sch: Schedule, block: BlockRV): LoopRV[] {
  const loops = sch.getLoops(block);
  let k = loops.length;
  while (k > 0 && blocksUnder(sch, loops[k - 1]!) === 1) k--;
  return loops.slice(k);
}

function blocksUnder(sch: Schedule, loop: LoopRV): number {
  let count = 0;
  forEachStmt(sch.get(loop), (s) => {
    if (s.kind === "BlockRealize") count++;
  });
  return count;
}

/**
 * A racy schedule (pick "d2l vector add" above): each block stages its piece of A in shared
 * memory, but the copy loop is bound to no thread, so all 128 threads of a block copy all 128
 * elements at once. The simulator reports the write-write race. Bind the copy loop to
 * threadIdx.x (the commented line) and the race is gone.
 */
import type { LoopRV, Schedule } from "@tessera/schedule";

export function schedule(sch: Schedule): void {
  const add = sch.getBlock("C");
  const [i] = sch.getLoops(add) as [LoopRV];
  const [block, thread] = sch.split(i, [null, 128]) as [LoopRV, LoopRV];
  sch.bind(block, "blockIdx.x");
  sch.bind(thread, "threadIdx.x");
  const aShared = sch.cacheRead(add, 0, "shared");
  sch.computeAt(aShared, block);
  // sch.bind(sch.getLoops(aShared)[1]!, "threadIdx.x");
}

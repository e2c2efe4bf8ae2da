/**
 * d2l's vector add on the GPU: pick "d2l vector add" above. `schedule(sch)` is applied to the
 * chosen workload; each thread adds one element, 128 threads per block.
 */
import type { LoopRV, Schedule } from "@tessera/schedule";

export function schedule(sch: Schedule): void {
  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
  const [block, thread] = sch.split(i, [null, 128]) as [LoopRV, LoopRV];
  sch.bind(block, "blockIdx.x");
  sch.bind(thread, "threadIdx.x");
}

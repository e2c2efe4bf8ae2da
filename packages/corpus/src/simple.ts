/** Small GPU workloads of the MLC notebook: vector add and a window sum with a shared stage. */
import { add, compute, createPrimFunc, placeholder, vectorAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";

/** `C = A + B` over `n` elements, split by `threads` and bound to blockIdx.x / threadIdx.x. */
export function vectorAddSchedule(n: number, threads = 128): Schedule {
  const sch = new Schedule(vectorAdd(n).func);
  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
  const [bx, tx] = sch.split(i, [null, threads]) as [LoopRV, LoopRV];
  sch.bind(bx, "blockIdx.x");
  sch.bind(tx, "threadIdx.x");
  return sch;
}

/** The unscheduled window sum `B[i] = A[i] + A[i + 1] + A[i + 2]` (A has n + 2 elements). */
export function windowSum(n: number) {
  const A = placeholder([n + 2], "float32", "A");
  const B = compute([n], (i) => add(add(A.at(i), A.at(add(i, 1))), A.at(add(i, 2))), "B");
  return createPrimFunc([A, B], { name: "window_sum" });
}

/**
 * The window sum with a shared-memory stage of A per thread block, fetched cooperatively by the
 * block's threads (each thread reads neighbours' elements, so a barrier is needed).
 */
export function windowSumSchedule(n: number, threads = 64): Schedule {
  const sch = new Schedule(windowSum(n));
  const block = sch.getBlock("B");
  const [i] = sch.getLoops(block) as [LoopRV];
  const [bx, tx] = sch.split(i, [null, threads]) as [LoopRV, LoopRV];
  sch.bind(bx, "blockIdx.x");
  sch.bind(tx, "threadIdx.x");
  const shared = sch.cacheRead(block, 0, "shared");
  sch.computeAt(shared, bx);
  const [, fetch] = sch.getLoops(shared) as [LoopRV, LoopRV];
  const [, ftx] = sch.split(fetch, [null, threads]) as [LoopRV, LoopRV];
  sch.bind(ftx, "threadIdx.x");
  return sch;
}

/** Small workloads and spaces shared by the tuning tests. */
import type { Target } from "@tessera/codegen";
import { target } from "@tessera/codegen";
import { type PrimFunc, vectorAdd } from "@tessera/ir";
import type { LoopRV, Schedule } from "@tessera/schedule";
import { type TuneTask, tuneContext, workloadOf, type Logger } from "../../src/index.js";
import { FakeReplayTrace, fakeScheduleFnSpace, loopExtents } from "./fakes.js";

export const H100: Target = target("nvidia/h100");

/** Split the only loop of a vector add by a sampled tile, bind blocks and threads. */
export function splitAndBind(sch: Schedule): void {
  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
  const [outer, inner] = sch.samplePerfectTile(i, 2, 1024);
  const [bx, tx] = sch.split(i, [outer, inner]) as [LoopRV, LoopRV];
  sch.bind(bx, "blockIdx.x");
  sch.bind(tx, "threadIdx.x");
}

/** Threads per block of a split-and-bound vector add. */
export function threadsOf(func: PrimFunc): number {
  return loopExtents(func).at(-1)!;
}

/** Fastest at 128 threads; 1 us slower per factor of two away from it. */
export function vectorAddLatency(func: PrimFunc): number {
  return 1e-6 * (10 + Math.abs(Math.log2(threadsOf(func)) - 7));
}

export function vectorAddTask(n: number, opts: { seed?: number; log?: Logger; name?: string; weight?: number } = {}): TuneTask & { strategy: FakeReplayTrace } {
  const func = vectorAdd(n).func;
  return {
    ctx: tuneContext(workloadOf(func, opts.name), H100, { seed: opts.seed ?? 1, ...(opts.log ? { log: opts.log } : {}) }),
    space: fakeScheduleFnSpace(splitAndBind),
    strategy: new FakeReplayTrace(),
    ...(opts.weight === undefined ? {} : { weight: opts.weight }),
  };
}

/**
 * AutoBind (TVM's `ScheduleRule::AutoBind`): binds the outer data-parallel loops of a block that
 * MultiLevelTiling did not tile to `blockIdx.x` and `threadIdx.x`, with a thread extent sampled
 * among `threadExtents`, so that every block of a GPU kernel runs on threads.
 */
import type { BlockRV, Schedule } from "@tessera/schedule";
import { checkPositiveInts } from "../schedule-utils/options.js";
import { bindBlockThreadIdx, sampledThreadFactor } from "../schedule-utils/thread-bind.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";

export interface AutoBindOptions {
  /** Most thread blocks the fused loop is split into before the rest goes serial (TVM: 256). */
  readonly maxThreadblocks?: number;
  /** Candidate threads per block (TVM: 32…1024). */
  readonly threadExtents?: readonly number[];
  /** Threads per block allowed; the target's limit by default. */
  readonly maxThreadsPerBlock?: number;
}

export const AUTO_BIND_THREAD_EXTENTS: readonly number[] = [32, 64, 128, 256, 512, 1024];

export function autoBind(opts: AutoBindOptions = {}): ScheduleRule {
  const maxThreadblocks = opts.maxThreadblocks ?? 256;
  const threadExtents = opts.threadExtents ?? AUTO_BIND_THREAD_EXTENTS;
  checkPositiveInts("autoBind", "threadExtents", threadExtents);
  checkPositiveInts("autoBind", "maxThreadblocks", [maxThreadblocks]);
  const chooser = sampledThreadFactor(threadExtents);
  return {
    name: "autoBind",
    apply(sch: Schedule, block: BlockRV, ctx: TuneContext): Schedule[] {
      const maxThreadsPerBlock = opts.maxThreadsPerBlock ?? gpuTargetOf(ctx, "AutoBind").maxThreadsPerBlock;
      bindBlockThreadIdx(sch, block, { maxThreadblocks, maxThreadsPerBlock }, chooser);
      return [sch];
    },
  };
}

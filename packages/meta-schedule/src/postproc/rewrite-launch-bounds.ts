/**
 * Turns the sampled `meta_schedule.launch_bounds_min_blocks_per_sm` knob of a kernel's outermost
 * loop into `launch_bounds_min_blocks_per_sm` (left out at 0):
 * - a positive value is the minimum blocks per SM asked for, lowered to what the target's threads
 *   per SM allow;
 * - DERIVED_LAUNCH_BOUNDS (-1) derives it from the kernel: as many blocks as the registers a thread
 *   is estimated to need (register-estimate.ts, by the feature extractor's buffer layouts) let an SM's register sub-partitions
 *   hold (support/register-occupancy.ts), at least one — so that the bound
 *   tells nvcc the occupancy the kernel can have anyway instead of forcing spills (an independent
 *   draw of 2 for a kernel of 128 accumulators per thread halves its register budget).
 */
import type { Schedule } from "@tessera/schedule";
import { LAUNCH_BOUNDS } from "../schedule-utils/annotations.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedLoops, threadsInside } from "./annotated.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";
import { REGISTERS_PER_SM, blocksPerSMForRegisters, registersPerThread } from "./register-estimate.js";

/** The knob's value that derives the minimum blocks per SM from the estimated registers. */
export const DERIVED_LAUNCH_BOUNDS = -1;

export class RewriteLaunchBounds implements Postproc {
  readonly name = "rewriteLaunchBounds";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node, value } of annotatedLoops(sch, LAUNCH_BOUNDS)) {
      sch.unannotate(rv, LAUNCH_BOUNDS);
      const threads = threadsInside(node);
      const perSM = gpuTargetOf(ctx, "RewriteLaunchBounds").maxThreadsPerMultiProcessor;
      let blocks = value ?? 0;
      if (blocks === DERIVED_LAUNCH_BOUNDS) {
        blocks = blocksPerSMForRegisters(registersPerThread(sch.func, node), threads, REGISTERS_PER_SM, perSM);
      } else if (perSM !== undefined) {
        blocks = Math.min(blocks, Math.floor(perSM / threads));
      }
      if (blocks > 0) sch.annotate(rv, "launch_bounds_min_blocks_per_sm", blocks);
    }
    return POSTPROC_OK;
  }
}

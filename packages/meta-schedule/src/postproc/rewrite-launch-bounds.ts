/**
 * Turns the sampled `meta_schedule.launch_bounds_min_blocks_per_sm` knob of a kernel's outermost
 * loop into `launch_bounds_min_blocks_per_sm`, lowered to what the target's threads per SM allow
 * (and left out at 0).
 */
import type { Schedule } from "@tessera/schedule";
import { LAUNCH_BOUNDS } from "../rules/multi-level-tiling/annotations.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedLoops, threadsInside } from "./annotated.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "./postproc.js";

export class RewriteLaunchBounds implements Postproc {
  readonly name = "rewriteLaunchBounds";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node, value } of annotatedLoops(sch, LAUNCH_BOUNDS)) {
      sch.unannotate(rv, LAUNCH_BOUNDS);
      let blocks = value ?? 0;
      const perSM = gpuTargetOf(ctx, "RewriteLaunchBounds").maxThreadsPerMultiProcessor;
      if (perSM !== undefined) blocks = Math.min(blocks, Math.floor(perSM / threadsInside(node)));
      if (blocks > 0) sch.annotate(rv, "launch_bounds_min_blocks_per_sm", blocks);
    }
    return POSTPROC_OK;
  }
}

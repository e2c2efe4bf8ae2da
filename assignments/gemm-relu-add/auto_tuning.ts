/**
 * Part 2 (20 pt): auto-tuning. Define a search space of schedules; the tuner samples it, times
 * the candidates on your GPU and prints the best one as an `applyTrace` function, which you paste
 * into trace_submission.ts (the file that is graded; this one is not handed in).
 *
 *   pnpm grade --tune            samples and times candidates, prints the best applyTrace
 *
 * Start by copying your part-1 schedule here (a search space with one point) and check that
 * tuning runs; then replace the fixed tile sizes by sampled ones.
 */
import type { Schedule } from "@tessera/schedule";
// You may reuse your part-1 tasks, e.g.:
// import { epilogueFusion, writeCache } from "./gemm_relu_add.js";

export function autoTuningSchedule(sch: Schedule): void {
  // TODO(part 2): the manual schedule with sampled tile sizes.
  //  - sch.samplePerfectTile(loop, n, maxInnermostFactor) returns n sampled values whose product
  //    is the loop's extent; pass them straight to sch.split(loop, [v0, v1, ...]).
  //  - Sample i and j into three factors each (thread block / thread / register tile) and k into
  //    three (k chunk / k step / register k), then reorder, bind and add the cache stages as in
  //    part 1.
  //  - Sampled values can be split factors anywhere: cooperative fetching must split the copy
  //    loop by the same thread extents as the compute loops, so reuse those sampled values.
  //  - Candidates with more than 1024 threads or 48 KB of shared memory per block fail to
  //    build and are skipped by the tuner; a smaller maxInnermostFactor keeps fewer of them.
  void sch;
  throw new Error("TODO(part 2): autoTuningSchedule is not implemented yet");
}

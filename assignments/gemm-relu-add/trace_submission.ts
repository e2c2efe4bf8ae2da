/**
 * Part 2 hand-in: the best schedule found by tuning.
 *
 * Replace this whole file by the `applyTrace` function that `pnpm grade --tune` prints at the
 * end (starting from its `import` line), unchanged. The autograder replays it on a fresh
 * 2048×2048×2048 schedule, checks the numbers and times it: see README.md for the score table.
 *
 *   pnpm grade --evaluate-tuned   times the schedule in this file on your GPU
 *
 * As handed out, applyTrace does nothing: the workload stays unscheduled and scores 0.
 */
import type { Schedule } from "@tessera/schedule";

export function applyTrace(sch: Schedule): void {
  void sch;
}

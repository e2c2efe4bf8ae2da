/**
 * A schedule rule (TVM's `ScheduleRule`): applied by PostOrderApply to one block of a schedule,
 * it returns the schedules it derives from it — one when it transforms deterministically (its
 * sampled decisions stay in the trace), several when it branches (e.g. with and without
 * cross-thread reduction), or the input unchanged when the block does not concern it.
 */
import type { BlockRV, Schedule } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";

export interface ScheduleRule {
  /** TVM's class name in camelCase, e.g. `multiLevelTiling`. */
  readonly name: string;
  /** Called once per task before any `apply`. */
  initialize?(ctx: TuneContext): void;
  /** Never mutates `sch` in place when it returns more than one schedule (it copies). */
  apply(sch: Schedule, block: BlockRV, ctx: TuneContext): Schedule[];
}

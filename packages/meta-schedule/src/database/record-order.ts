/**
 * How records compare (TVM's `SortTuningRecordByMeanRunSecs`): by the mean of their run times,
 * a failed record (no run times, or any of them not finite or ≥ 1e10 s) counting as 1e10 s.
 */
import { FAILED_RUN_SECS } from "../interfaces/runner.js";
import type { TuningRecord } from "../interfaces/database.js";

export function isValidRecord(record: TuningRecord): boolean {
  const secs = record.runSecs;
  return secs !== undefined && secs.length > 0 && secs.every((s) => Number.isFinite(s) && s > 0 && s < FAILED_RUN_SECS) && record.trace.instructions.length > 0;
}

export function recordMeanRunSecs(record: TuningRecord): number {
  if (!isValidRecord(record)) return FAILED_RUN_SECS;
  const secs = record.runSecs!;
  return secs.reduce((a, b) => a + b, 0) / secs.length;
}

/**
 * TVM's log line of one trial:
 *   `[Task #0: main] Trial #12: GFLOPs: 1234.5678. Time: 345.6780 us. Best GFLOPs: 1500.0000`
 * and of a failed one: `[Task #0: main] Trial #13: Error in building: <message>`.
 * When the runner estimates instead of measuring (the simulated runner), every figure says so:
 *   `… Trial #12: GFLOPs (estimated): 1234.5678. Time (estimated): 345.6780 us. Best GFLOPs (estimated): 1500.0000`
 */
import type { TaskRecord } from "./task-record.js";

export type TrialOutcome =
  | { readonly ok: true; readonly latencySecs: number }
  | { readonly ok: false; readonly stage: "building" | "running"; readonly error: string };

export function formatTrialLine(task: TaskRecord, trial: number, outcome: TrialOutcome, estimated = false): string {
  const head = `[Task #${task.id}: ${task.name}] Trial #${trial}: `;
  if (!outcome.ok) return `${head}Error in ${outcome.stage}: ${outcome.error}`;
  const best = task.bestLatency;
  const est = estimated ? " (estimated)" : "";
  return (
    `${head}GFLOPs${est}: ${task.gflopsAt(outcome.latencySecs).toFixed(4)}. ` +
    `Time${est}: ${(outcome.latencySecs * 1e6).toFixed(4)} us. ` +
    `Best GFLOPs${est}: ${task.gflopsAt(best).toFixed(4)}`
  );
}

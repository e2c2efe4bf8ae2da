/** summary.csv: one row per submission, one points column per task of the manifest. */
import { toCsv } from "./csv.js";
import type { OutcomeSummary } from "./grade-one.js";

export function summaryHeader(taskIds: readonly string[]): string[] {
  return ["submission", "status", "score", "max_score", ...taskIds, "seconds", "error"];
}

/**
 * An error row scores 0 (what its results.json gives Gradescope); its maximum and task columns
 * stay empty, as nothing was graded.
 */
export function summaryRow(outcome: OutcomeSummary, taskIds: readonly string[]): (string | number | undefined)[] {
  const seconds = outcome.seconds.toFixed(1);
  if (outcome.status === "error") return [outcome.name, "error", 0, undefined, ...taskIds.map(() => undefined), seconds, outcome.error];
  const points = new Map(outcome.tasks.map((t) => [t.id, t.points]));
  return [outcome.name, "graded", outcome.score, outcome.maxScore, ...taskIds.map((id) => round2(points.get(id))), seconds, undefined];
}

function round2(x: number | undefined): number | undefined {
  return x === undefined ? undefined : Math.round(x * 100) / 100;
}

export function summaryCsv(outcomes: readonly OutcomeSummary[], taskIds: readonly string[]): string {
  return toCsv([summaryHeader(taskIds), ...outcomes.map((o) => summaryRow(o, taskIds))]);
}

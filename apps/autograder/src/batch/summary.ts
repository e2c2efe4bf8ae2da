/**
 * summary.csv: one row per submission; a points column per task of the manifest that has points,
 * and a column per numerics check (pass, fail or not-checked: these checks are 0-point gates, so
 * a points column would read 0 for every submission).
 */
import type { Manifest } from "../manifest/index.js";
import { type CsvValue, toCsv } from "./csv.js";
import type { OutcomeSummary } from "./grade-one.js";

export interface SummaryColumns {
  /** Tasks with points, by id. */
  readonly taskIds: readonly string[];
  /** Numerics checks, by id. */
  readonly numericsIds: readonly string[];
}

export function summaryColumns(manifest: Manifest): SummaryColumns {
  return {
    taskIds: manifest.tasks.filter((t) => t.points > 0).map((t) => t.id),
    numericsIds: manifest.tasks.flatMap((t) => t.checks.filter((c) => c.kind === "numerics").map((c) => c.id)),
  };
}

export function summaryHeader(columns: SummaryColumns): string[] {
  return ["submission", "status", "score", "max_score", ...columns.taskIds, ...columns.numericsIds, "seconds", "error"];
}

/**
 * An error row scores 0 (what its results.json gives Gradescope); its maximum, task and numerics
 * columns stay empty, as nothing was graded.
 */
export function summaryRow(outcome: OutcomeSummary, columns: SummaryColumns): CsvValue[] {
  const seconds = Math.round(outcome.seconds * 10) / 10;
  const blank = [...columns.taskIds, ...columns.numericsIds].map(() => undefined);
  if (outcome.status === "error") return [outcome.name, "error", 0, undefined, ...blank, seconds, outcome.error];
  const points = new Map(outcome.tasks.map((t) => [t.id, t.points]));
  const numerics = columns.numericsIds.map((id) => outcome.numerics[id] ?? "not-checked");
  return [outcome.name, "graded", outcome.score, outcome.maxScore, ...columns.taskIds.map((id) => round2(points.get(id))), ...numerics, seconds, undefined];
}

function round2(x: number | undefined): number | undefined {
  return x === undefined ? undefined : Math.round(x * 100) / 100;
}

export function summaryCsv(outcomes: readonly OutcomeSummary[], manifest: Manifest): string {
  const columns = summaryColumns(manifest);
  return toCsv([summaryHeader(columns), ...outcomes.map((o) => summaryRow(o, columns))]);
}

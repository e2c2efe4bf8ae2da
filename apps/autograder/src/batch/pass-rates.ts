/**
 * Pass rates per task: of the submissions in the batch, how many earned the task's full points,
 * some of them, or none. A submission that could not be graded counts as earning none (it is in
 * the batch, and Gradescope gives it 0).
 */
import type { Manifest } from "../manifest/index.js";
import type { OutcomeSummary } from "./grade-one.js";

export interface TaskPassRate {
  readonly id: string;
  readonly title: string;
  /** The task's points in this batch's runs (0 when every check of it was skipped, e.g. timing without a GPU). */
  readonly maxPoints: number;
  readonly full: number;
  readonly partial: number;
  readonly none: number;
  readonly meanPoints: number;
}

export function taskPassRates(outcomes: readonly OutcomeSummary[], manifest: Manifest): TaskPassRate[] {
  return manifest.tasks.map((task) => {
    const scores = outcomes.map((o) => (o.status === "graded" ? o.tasks.find((t) => t.id === task.id) : undefined));
    const maxPoints = Math.max(0, ...scores.map((s) => s?.maxPoints ?? 0));
    let full = 0;
    let partial = 0;
    let total = 0;
    for (const s of scores) {
      const points = s?.points ?? 0;
      total += points;
      if (s !== undefined && s.maxPoints > 0 && points >= s.maxPoints) full++;
      else if (points > 0) partial++;
    }
    const counted = outcomes.length;
    return { id: task.id, title: task.title, maxPoints, full, partial, none: counted - full - partial, meanPoints: counted === 0 ? 0 : total / counted };
  });
}

/** The table as GitHub markdown (also what is printed at the end of a batch). */
export function passRatesMarkdown(rates: readonly TaskPassRate[], submissions: number): string {
  const percent = (n: number): string => (submissions === 0 ? "–" : `${((100 * n) / submissions).toFixed(0)}%`);
  const unscored = submissions === 0 || rates.every((r) => r.maxPoints === 0) ? "no submission was graded" : "all its checks were skipped";
  const rows = rates.map((r) =>
    r.maxPoints === 0
      ? `| ${r.title} | 0 | – | – | – | – (${unscored}) |`
      : `| ${r.title} | ${r.maxPoints} | ${r.full} (${percent(r.full)}) | ${r.partial} | ${r.none} | ${r.meanPoints.toFixed(1)} |`,
  );
  return [
    `Pass rates per task (${submissions} submission${submissions === 1 ? "" : "s"}; ungraded ones count as 0 points)`,
    "",
    "| Task | Points | Full points | Partial | None | Mean points |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}

/**
 * Pass rates per task: of the submissions in the batch, how many earned the task's full points,
 * some of them, or none. A submission that could not be graded counts as earning none (it is in
 * the batch, and Gradescope gives it 0). The numerics checks are 0-point gates, so they are
 * counted by verdict instead: pass, fail, not checked (an ungraded submission: not checked).
 */
import type { Manifest } from "../manifest/index.js";
import type { OutcomeSummary } from "./grade-one.js";

export interface TaskPassRate {
  readonly id: string;
  readonly title: string;
  /** The task's points in the manifest (0 for a gate such as numerics, counted in NumericsPassRate). */
  readonly taskPoints: number;
  /** The task's points in this batch's runs (0 when every check of it was skipped, e.g. timing without a GPU). */
  readonly maxPoints: number;
  readonly full: number;
  readonly partial: number;
  readonly none: number;
  readonly meanPoints: number;
}

export interface NumericsPassRate {
  readonly checkId: string;
  /** The title of the task the check belongs to. */
  readonly title: string;
  readonly pass: number;
  readonly fail: number;
  readonly notChecked: number;
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
    return {
      id: task.id,
      title: task.title,
      taskPoints: task.points,
      maxPoints,
      full,
      partial,
      none: counted - full - partial,
      meanPoints: counted === 0 ? 0 : total / counted,
    };
  });
}

export function numericsPassRates(outcomes: readonly OutcomeSummary[], manifest: Manifest): NumericsPassRate[] {
  return manifest.tasks.flatMap((task) =>
    task.checks
      .filter((c) => c.kind === "numerics")
      .map((check) => {
        const verdicts = outcomes.map((o) => (o.status === "graded" ? (o.numerics[check.id] ?? "not-checked") : "not-checked"));
        const count = (v: string): number => verdicts.filter((x) => x === v).length;
        return { checkId: check.id, title: task.title, pass: count("pass"), fail: count("fail"), notChecked: count("not-checked") };
      }),
  );
}

/** The tables as GitHub markdown (also what is printed at the end of a batch). */
export function passRatesMarkdown(rates: readonly TaskPassRate[], submissions: number, numerics: readonly NumericsPassRate[] = []): string {
  const percent = (n: number): string => (submissions === 0 ? "–" : `${((100 * n) / submissions).toFixed(0)}%`);
  const unscored = submissions === 0 || rates.every((r) => r.maxPoints === 0) ? "no submission was graded" : "all its checks were skipped";
  const rows = rates.map((r) =>
    r.taskPoints === 0
      ? `| ${r.title} | 0 | – | – | – | – (a 0-point check: see Numerics) |`
      : r.maxPoints === 0
        ? `| ${r.title} | 0 | – | – | – | – (${unscored}) |`
        : `| ${r.title} | ${r.maxPoints} | ${r.full} (${percent(r.full)}) | ${r.partial} | ${r.none} | ${r.meanPoints.toFixed(1)} |`,
  );
  const lines = [
    `Pass rates per task (${submissions} submission${submissions === 1 ? "" : "s"}; ungraded ones count as 0 points)`,
    "",
    "| Task | Points | Full points | Partial | None | Mean points |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    "",
  ];
  if (numerics.length > 0) {
    lines.push(
      "Numerics (ungraded submissions count as not checked)",
      "",
      "| Check | Pass | Fail | Not checked |",
      "|---|---:|---:|---:|",
      ...numerics.map((n) => `| ${n.title} (${n.checkId}) | ${n.pass} (${percent(n.pass)}) | ${n.fail} | ${n.notChecked} |`),
      "",
    );
  }
  return lines.join("\n");
}

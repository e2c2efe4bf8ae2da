/**
 * The report a student reads in the terminal: a table of tasks with points, every failed check
 * with what is missing, numerics, timings and notes. Plain text (no colour codes), so it reads the
 * same in a log file, in Gradescope's output and on a terminal.
 */
import type { GradeReport, ScheduleRole } from "../grade/grade-submission.js";
import { numericsSummary } from "../grade/grade-submission.js";
import type { NumericsOutcome, TimingOutcome } from "../grade/numerics-types.js";
import { type TaskGrade, available, earned } from "../grade/task-grade.js";
import { NOISY_MIN_GAP, NOISY_STD_SHARE, timingNoise } from "../grade/timing-noise.js";
import { formatTimingWithNoise } from "./timing-stats.js";

export interface TerminalReportOptions {
  /** Print the IR after each part-1 task (`--show`). */
  readonly show?: boolean;
  /** Print the generated CUDA (`--show-cuda`). */
  readonly showCuda?: boolean;
  /** Include what the student's code printed (default true; Gradescope's copy leaves it out). */
  readonly studentOutput?: boolean;
}

/** Lines of the student's own output shown per run, so a print loop cannot flood the report. */
const STUDENT_OUTPUT_LINES = 200;

const ROLE_LABEL: Record<ScheduleRole, string> = {
  "reference-manual": "reference manual schedule (solution)",
  "reference-naive": "naive schedule (course)",
  manual: "your manual schedule",
  naive: "your naiveSchedule",
  tuned: "your tuned schedule (trace_submission.ts)",
};

export function formatTerminalReport(report: GradeReport, opts: TerminalReportOptions = {}): string {
  const out: string[] = [];
  const m = report.manifest;
  out.push(`${m.title}`, `Graded: ${report.submissionDir} (${modeLabel(report)})`);
  out.push("name" in report.gpu ? `GPU: ${report.gpu.name}` : `GPU: none (${report.gpu.unavailable})`, "");

  if (opts.studentOutput !== false) {
    for (const o of report.studentOutput) {
      out.push(`── printed by your code (${o.file}) ──`, ...clip(o.stdout), ...(o.stderr.trim() === "" ? [] : ["(stderr)", ...clip(o.stderr)]), "");
    }
  }

  if (opts.show === true) {
    for (const t of report.tasks) {
      const script = report.scripts.get(t.task.id);
      if (script !== undefined) out.push(`── IR after ${t.task.title} (${t.task.function}) ──`, script.trimEnd(), "");
    }
  }

  const width = Math.max(24, ...report.tasks.map((t) => t.task.title.length)) + 2;
  for (const t of report.tasks) out.push(...taskLines(t, width, report.mode === "full"));
  if (report.mode === "full") {
    const skipped = m.totalPoints - report.maxScore;
    out.push("─".repeat(width + 16));
    out.push(`${"Total".padEnd(width)}${fmt(report.score)} / ${fmt(report.maxScore)}${skipped > 0 ? `   (${fmt(skipped)} pt need a GPU and were not graded)` : ""}`);
  }

  const numerics = (Object.entries(report.numerics) as [ScheduleRole, NumericsOutcome][]).filter(([role]) => report.mode !== "full" || role === "naive");
  if (numerics.length > 0) {
    out.push("", "Numerics:");
    for (const [role, n] of numerics) out.push(`  ${ROLE_LABEL[role]}: ${n.passed ? "PASS" : "FAIL"} — ${numericsSummary(n)}`);
  }

  const timings = Object.entries(report.timings) as [ScheduleRole, TimingOutcome | { error: string }][];
  if (timings.length > 0) {
    const t = m.timing;
    out.push("", `Timings (number=${t.number}, repeat=${t.repeat}, min_repeat_ms=${t.minRepeatMs}; per run over the repeats):`);
    const w = Math.max(...timings.map(([role]) => ROLE_LABEL[role].length)) + 2;
    for (const [role, timing] of timings) {
      out.push(`  ${ROLE_LABEL[role].padEnd(w)}${"error" in timing ? `failed: ${timing.error}` : formatTimingWithNoise(timing)}`);
    }
    if (timings.some(([, timing]) => !("error" in timing) && timingNoise(timing) !== undefined)) {
      out.push(`  NOISY: std above ${NOISY_STD_SHARE * 100}% of the mean, or min more than ${NOISY_MIN_GAP * 100}% below the median: something else may have used the GPU; grade again.`);
    }
  } else if ("unavailable" in report.gpu && report.mode !== "test") {
    out.push("", "Timings: skipped (no GPU).");
  }

  if (opts.showCuda === true) {
    for (const [role, source] of Object.entries(report.cuda) as [ScheduleRole, string][]) out.push("", `── CUDA of ${ROLE_LABEL[role]} ──`, source.trimEnd());
  }

  if (report.notes.length > 0) out.push("", "Notes:", ...report.notes.map((n) => `  - ${n}`));
  out.push("", `Graded in ${(report.elapsedMs / 1000).toFixed(1)} s.`);
  // Sections add their own blank line before them; an empty section must not leave two.
  return out.join("\n").replace(/\n{3,}/g, "\n\n") + "\n";
}

function modeLabel(report: GradeReport): string {
  switch (report.mode) {
    case "full":
      return "full grading";
    case "test":
      return "--test: numerics of the manual schedule";
    case "evaluate-manual":
      return "--evaluate-manual";
    case "evaluate-tuned":
      return "--evaluate-tuned";
    case "evaluate-naive":
      return "--evaluate-naive";
  }
}

function taskLines(t: TaskGrade, width: number, scored: boolean): string[] {
  const max = t.task.points;
  const got = earned(t);
  const avail = available(t);
  const status = max === 0 ? zeroPointStatus(t) : scored ? `${fmt(got)} / ${fmt(avail)}${avail < max ? ` (of ${fmt(max)})` : ""}` : "";
  const lines = [`${t.task.title.padEnd(width)}${status}`];
  if (t.error !== undefined) lines.push(...indent(`✗ ${t.error}`, 4));
  for (const c of t.checks) {
    if (c.status === "passed" && (c.feedback === "" || t.task.points > 0)) continue;
    if (t.error !== undefined && c.status === "failed" && c.feedback.startsWith("not graded")) continue;
    const mark = c.status === "passed" ? "✓" : c.status === "skipped" ? "–" : "✗";
    const pts = c.check.points > 0 ? ` (${fmt(c.check.points)} pt)` : "";
    lines.push(...indent(`${mark} ${c.check.description}${pts}`, 4));
    if (c.feedback !== "") lines.push(...indent(`→ ${c.feedback}`, 8));
  }
  // Which earlier tasks the solution stood in for only matters for a task that was graded.
  if (t.error === undefined) for (const n of t.notes) lines.push(...indent(`note: ${n}`, 4));
  return lines;
}

/** A 0-point task (a gate such as numerics): ok, FAILED, or not checked. */
function zeroPointStatus(t: TaskGrade): string {
  if (t.checks.some((c) => c.status === "failed")) return "FAILED";
  return t.checks.every((c) => c.status === "passed") ? "ok" : "not checked";
}

function clip(text: string): string[] {
  const lines = text.trimEnd().split("\n");
  return lines.length <= STUDENT_OUTPUT_LINES ? lines : [...lines.slice(0, STUDENT_OUTPUT_LINES), `… (${lines.length - STUDENT_OUTPUT_LINES} more lines)`];
}

function indent(text: string, n: number): string[] {
  return text.split("\n").map((l) => `${" ".repeat(n)}${l}`);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

/**
 * The report a student reads in the terminal: a table of tasks with points, every failed check
 * with what is missing, numerics, timings and notes. Plain text (no colour codes), so it reads the
 * same in a log file, in Gradescope's output and on a terminal. What the student's code printed is
 * fenced and escaped (student-text.ts); an error several tasks share is shown once (shared-errors.ts).
 */
import type { GradeReport, ScheduleRole } from "../grade/grade-submission.js";
import { numericsSummary } from "../grade/grade-submission.js";
import type { NumericsOutcome, TimingOutcome } from "../grade/numerics-types.js";
import { numericsVerdicts } from "../grade/numerics-verdicts.js";
import { type TaskGrade, available, earned } from "../grade/task-grade.js";
import { taskVerdict } from "../grade/task-verdict.js";
import { NOISY_MIN_GAP, NOISY_STD_SHARE, timingNoise } from "../grade/timing-noise.js";
import { type SharedError, sharedErrorReference, sharedErrors } from "./shared-errors.js";
import { escapeControls, fencedStudentOutput } from "./student-text.js";
import { formatTimingWithNoise } from "./timing-stats.js";

export interface TerminalReportOptions {
  /** Print the IR after each part-1 task (`--show`). */
  readonly show?: boolean;
  /** Print the generated CUDA (`--show-cuda`). */
  readonly showCuda?: boolean;
  /** Include what the student's code printed (default true; Gradescope's copy leaves it out). */
  readonly studentOutput?: boolean;
}

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
  out.push(`${m.title}`, `Graded: ${escapeControls(report.submissionName)} (${modeLabel(report)})`);
  out.push("name" in report.gpu ? `GPU: ${report.gpu.name}` : `GPU: none (${report.gpu.unavailable})`, "");

  if (opts.studentOutput !== false) {
    for (const o of report.studentOutput) {
      out.push(
        ...fencedStudentOutput(`output of your code (${o.file})`, o.stdout),
        ...fencedStudentOutput(`error output (stderr) of your code (${o.file})`, o.stderr),
        "",
      );
    }
  }

  if (opts.show === true) {
    for (const t of report.tasks) {
      const script = report.scripts.get(t.task.id);
      if (script !== undefined) out.push(`── IR after ${t.task.title} (${t.task.function}) ──`, script.trimEnd(), "");
    }
  }

  const shared = sharedErrors(report.tasks);
  for (const e of shared) out.push(...indent(`✗ ${escapeControls(e.text)}`, 2), "");
  if (report.mode === "test") out.push(...numericsOnlyLines(report));

  const width = Math.max(24, ...report.tasks.map((t) => t.task.title.length)) + 2;
  if (report.mode !== "test") for (const t of report.tasks) out.push(...taskLines(t, width, report.mode === "full", shared));
  if (report.mode === "full") {
    const skipped = m.totalPoints - report.maxScore;
    out.push("─".repeat(width + 16));
    out.push(
      `${"Total".padEnd(width)}${fmt(report.score)} / ${fmt(report.maxScore)}${skipped > 0 ? `   (${fmt(skipped)} pt need a GPU and were not graded)` : ""}`,
    );
  }

  const numerics = (Object.entries(report.numerics) as [ScheduleRole, NumericsOutcome][]).filter(
    ([role]) => (report.mode !== "full" && report.mode !== "test") || role === "naive",
  );
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
      out.push(
        `  NOISY: std above ${NOISY_STD_SHARE * 100}% of the mean, or min more than ${NOISY_MIN_GAP * 100}% below the median: something else may have used the GPU; grade again.`,
      );
    }
  } else if ("unavailable" in report.gpu && report.mode !== "test") {
    out.push("", "Timings: skipped (no GPU).");
  }

  if (opts.showCuda === true) {
    for (const [role, source] of Object.entries(report.cuda) as [ScheduleRole, string][]) out.push("", `── CUDA of ${ROLE_LABEL[role]} ──`, source.trimEnd());
  }

  if (report.notes.length > 0) out.push("", "Notes:", ...report.notes.map((n) => `  - ${escapeControls(n)}`));
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

/** `--test`: each part's numerics verdict with what was found or why it was not checked, then the outcome. */
function numericsOnlyLines(report: GradeReport): string[] {
  const verdicts = numericsVerdicts(report.tasks);
  const word = { pass: "PASS", fail: "FAIL", "not-checked": "NOT CHECKED" } as const;
  const lines = ["Numerics (--test checks numerics only; run `pnpm grade` for the points):"];
  for (const v of verdicts)
    lines.push(...indent(`Part ${v.task.part} (${ROLE_LABEL[v.task.part === 1 ? "manual" : "tuned"]}): ${word[v.verdict]} — ${escapeControls(v.detail)}`, 2));
  const failedParts = verdicts.filter((v) => v.verdict === "fail").map((v) => `part ${v.task.part}`);
  lines.push(
    "",
    failedParts.length > 0
      ? `Numerics FAILED (${failedParts.join(", ")}): exit code 1.`
      : verdicts.some((v) => v.verdict === "pass")
        ? `No numerics failure${verdicts.some((v) => v.verdict === "not-checked") ? " (some parts were not checked, see above)" : ""}.`
        : "Nothing was checked (see the reasons above).",
  );
  return lines;
}

function taskLines(t: TaskGrade, width: number, scored: boolean, shared: readonly SharedError[]): string[] {
  const max = t.task.points;
  const got = earned(t);
  const avail = available(t);
  // A task with points this run could not grade shows its real maximum, not "0 / 0".
  const notGraded = avail < max ? `   (${fmt(max - avail)} pt not graded in this run)` : "";
  const status = max === 0 ? zeroPointStatus(t) : scored ? `${fmt(got)} / ${fmt(avail < max ? max : avail)}${notGraded}` : "";
  const lines = [`${t.task.title.padEnd(width)}${status}`];
  const sharedError = shared.find((e) => e.text === t.error);
  if (sharedError !== undefined) lines.push(...indent(`✗ ${escapeControls(sharedErrorReference(sharedError))}`, 4));
  else if (t.error !== undefined) lines.push(...indent(`✗ ${escapeControls(t.error)}`, 4));
  for (const c of t.checks) {
    if (c.status === "passed" && (c.feedback === "" || t.task.points > 0)) continue;
    if (t.error !== undefined && c.status === "failed" && c.feedback.startsWith("not graded")) continue;
    const mark = c.status === "passed" ? "✓" : c.status === "skipped" ? "–" : "✗";
    const pts = c.check.points > 0 ? ` (${fmt(c.check.points)} pt)` : "";
    lines.push(...indent(`${mark} ${c.check.description}${pts}`, 4));
    if (c.feedback !== "") lines.push(...indent(`→ ${escapeControls(c.feedback)}`, 8));
  }
  // Which earlier tasks the solution stood in for only matters for a task that was graded.
  if (t.error === undefined) for (const n of t.notes) lines.push(...indent(`note: ${escapeControls(n)}`, 4));
  return lines;
}

/** A 0-point task (a gate such as numerics): ok, FAILED, or not checked. */
function zeroPointStatus(t: TaskGrade): string {
  const verdict = taskVerdict(t);
  return verdict.kind === "failed" ? "FAILED" : verdict.kind === "passed" ? "ok" : "not checked";
}

function indent(text: string, n: number): string[] {
  return text.split("\n").map((l) => `${" ".repeat(n)}${l}`);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

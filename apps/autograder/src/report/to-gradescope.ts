/**
 * A grade report as Gradescope's results.json: one test per task, its feedback as the output.
 * Each test has the task's real maximum and a status from its verdict (task-verdict.ts), never
 * from score ≥ max: "passed" only for a task with points that passed every check, "failed" for
 * one whose code or a check failed, and no status for a 0-point gate that passed or a task not
 * graded in this run (its output says which, and why).
 */
import type { GradeReport } from "../grade/grade-submission.js";
import { type TaskGrade, earned } from "../grade/task-grade.js";
import { type TaskVerdict, taskVerdict } from "../grade/task-verdict.js";
import { type GradescopeResults, type GradescopeTest, gradescopeResults } from "./gradescope.js";
import { type SharedError, sharedErrorReference, sharedErrors } from "./shared-errors.js";
import { escapeControls } from "./student-text.js";
import { formatTerminalReport } from "./terminal.js";

export function toGradescope(report: GradeReport): GradescopeResults {
  const shared = sharedErrors(report.tasks);
  const tests = report.tasks.map((t) => gradescopeTest(t, shared));
  // The student's own prints stay out of Gradescope's output, where they could pass for the grader's.
  return gradescopeResults(tests, formatTerminalReport(report, { studentOutput: false }), report.elapsedMs / 1000);
}

function gradescopeTest(t: TaskGrade, shared: readonly SharedError[]): GradescopeTest {
  const verdict = taskVerdict(t);
  const max = t.task.points;
  const status = gradescopeStatus(verdict, max);
  return {
    name: t.task.title,
    score: earned(t),
    max_score: max,
    ...(status === undefined ? {} : { status }),
    output: escapeControls(outputLines(t, verdict, shared).join("\n")),
    visibility: "visible",
  };
}

/** Gradescope knows only passed and failed; a 0-point pass or a task not graded gets neither. */
export function gradescopeStatus(verdict: TaskVerdict, maxScore: number): "passed" | "failed" | undefined {
  if (verdict.kind === "failed") return "failed";
  return verdict.kind === "passed" && maxScore > 0 ? "passed" : undefined;
}

function outputLines(t: TaskGrade, verdict: TaskVerdict, shared: readonly SharedError[]): string[] {
  const lines: string[] = [];
  if (verdict.kind === "not-graded") lines.push(`NOT GRADED in this run: ${verdict.reason}`);
  if (t.task.points === 0) lines.push(`A 0-point check: ${verdict.kind === "passed" ? "PASS" : verdict.kind === "failed" ? "FAIL" : "not checked"}.`);
  const sharedError = shared.find((e) => e.text === t.error);
  if (sharedError !== undefined) lines.push(sharedErrorReference(sharedError, "see the overall output"));
  else if (t.error !== undefined) lines.push(t.error);
  for (const c of t.checks) {
    const mark = c.status === "passed" ? "PASS" : c.status === "skipped" ? "NOT GRADED" : "FAIL";
    lines.push(`${mark} ${c.check.description}${c.feedback === "" ? "" : `\n    ${c.feedback}`}`);
  }
  lines.push(...t.notes.map((n) => `Note: ${n}`));
  return lines;
}

/** A grade report as Gradescope's results.json: one test per task, its feedback as the output. */
import type { GradeReport } from "../grade/grade-submission.js";
import { available, earned } from "../grade/task-grade.js";
import { type GradescopeResults, type GradescopeTest, gradescopeResults } from "./gradescope.js";
import { formatTerminalReport } from "./terminal.js";

export function toGradescope(report: GradeReport): GradescopeResults {
  const tests: GradescopeTest[] = report.tasks.map((t) => {
    const lines: string[] = [];
    if (t.error !== undefined) lines.push(t.error);
    for (const c of t.checks) {
      const mark = c.status === "passed" ? "PASS" : c.status === "skipped" ? "SKIPPED" : "FAIL";
      lines.push(`${mark} ${c.check.description}${c.feedback === "" ? "" : `\n    ${c.feedback}`}`);
    }
    lines.push(...t.notes.map((n) => `Note: ${n}`));
    const score = earned(t);
    const max = available(t);
    return { name: t.task.title, score, max_score: max, status: score >= max ? "passed" : "failed", output: lines.join("\n"), visibility: "visible" };
  });
  // The student's own prints stay out of Gradescope's output, where they could pass for the grader's.
  return gradescopeResults(tests, formatTerminalReport(report, { studentOutput: false }), report.elapsedMs / 1000);
}

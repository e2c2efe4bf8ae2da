/**
 * The verdict of each numerics check of a grading (one per part): pass, fail, or not checked, with
 * what was found or why it was not checked. Read from the checks, not from their points: the
 * numerics checks are 0-point gates, so their points say nothing.
 */
import type { Task } from "../manifest/index.js";
import type { TaskGrade } from "./task-grade.js";

export type NumericsVerdictKind = "pass" | "fail" | "not-checked";

export interface NumericsVerdict {
  readonly task: Task;
  readonly checkId: string;
  readonly verdict: NumericsVerdictKind;
  /** What the check found, or why it was not checked. */
  readonly detail: string;
}

export function numericsVerdicts(tasks: readonly TaskGrade[]): NumericsVerdict[] {
  return tasks.flatMap((t) =>
    t.checks
      .filter((c) => c.check.kind === "numerics")
      .map((c): NumericsVerdict => {
        // A task whose code failed never reached its numerics, whatever its checks were marked.
        if (t.error !== undefined) return { task: t.task, checkId: c.check.id, verdict: "not-checked", detail: firstLine(t.error) };
        const verdict: NumericsVerdictKind = c.status === "passed" ? "pass" : c.status === "failed" ? "fail" : "not-checked";
        return { task: t.task, checkId: c.check.id, verdict, detail: c.feedback.replace(/^not checked: /, "") };
      }),
  );
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.replace(/:$/, "");
}

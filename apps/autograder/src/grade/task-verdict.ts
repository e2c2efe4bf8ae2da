/**
 * A task's verdict, from its checks rather than from its points: a 0-point task (the numerics
 * gate) or a task whose points were not counted in this run (timing without a GPU) would
 * otherwise read as passed, since 0 ≥ 0.
 */
import type { TaskGrade } from "./task-grade.js";

export type TaskVerdict =
  | { readonly kind: "passed" }
  /** The task's code failed (threw, did not load) or a check of it failed. */
  | { readonly kind: "failed" }
  /** Nothing failed, but some check was not graded in this run; `reason` says why. */
  | { readonly kind: "not-graded"; readonly reason: string };

export function taskVerdict(grade: TaskGrade): TaskVerdict {
  if (grade.error !== undefined || grade.checks.some((c) => c.status === "failed")) return { kind: "failed" };
  const skipped = grade.checks.filter((c) => c.status === "skipped");
  if (skipped.length > 0 || grade.checks.length === 0) {
    const reason = skipped
      .map((c) => c.feedback)
      .filter((f) => f !== "")
      .join("; ");
    return { kind: "not-graded", reason: reason === "" ? "nothing of it was checked in this run" : reason };
  }
  return { kind: "passed" };
}

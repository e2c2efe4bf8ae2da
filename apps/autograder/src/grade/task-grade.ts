/** The outcome of one task and its checks, as the scoring and the reports see it. */
import type { Check, Task } from "../manifest/index.js";

export interface CheckGrade {
  readonly check: Check;
  /** "passed", "failed", or "skipped" (not checked here: e.g. timing without a GPU). */
  readonly status: "passed" | "failed" | "skipped";
  /** Points earned. */
  readonly points: number;
  /** Points this check can earn in this run (0 for a skipped check). */
  readonly maxPoints: number;
  /** What is missing, what was measured, or why it was skipped. */
  readonly feedback: string;
}

/** Why a task left no schedule of its own: its function did not complete, or its trace did not replay. */
export type IncompleteReason = "did not complete" | "could not be replayed";

export interface TaskGrade {
  readonly task: Task;
  readonly checks: readonly CheckGrade[];
  /** Why the task's function produced no schedule to grade (it threw, timed out, did not load…). */
  readonly error?: string;
  /** Set when there was no schedule to grade, so the solution's version stood in (see chain.ts). */
  readonly incomplete?: IncompleteReason;
  /** Notes for the report (e.g. which earlier tasks the solution stood in for). */
  readonly notes: readonly string[];
}

export const passed = (check: Check, feedback = ""): CheckGrade => ({ check, status: "passed", points: check.points, maxPoints: check.points, feedback });
export const failed = (check: Check, feedback: string): CheckGrade => ({ check, status: "failed", points: 0, maxPoints: check.points, feedback });
export const skipped = (check: Check, feedback: string): CheckGrade => ({ check, status: "skipped", points: 0, maxPoints: 0, feedback });

export function earned(grade: TaskGrade): number {
  return grade.checks.reduce((sum, c) => sum + c.points, 0);
}

export function available(grade: TaskGrade): number {
  return grade.checks.reduce((sum, c) => sum + c.maxPoints, 0);
}

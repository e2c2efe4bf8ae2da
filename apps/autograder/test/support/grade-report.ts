/**
 * Grade reports built by hand for the report builders' tests: the real manifest's tasks, each
 * graded as the test says, without running anything.
 */
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../../src/assignment.js";
import type { GradeReport } from "../../src/grade/grade-submission.js";
import { type CheckGrade, type TaskGrade, failed, passed, skipped } from "../../src/grade/task-grade.js";
import { type Check, type Task, loadManifest } from "../../src/manifest/index.js";

export const manifest = loadManifest(assignmentBinding(DEFAULT_ASSIGNMENT).manifestPath);

export function task(id: string): Task {
  const t = manifest.tasks.find((x) => x.id === id);
  if (t === undefined) throw new Error(`no task ${id} in the manifest`);
  return t;
}

/** Every check of `id` graded by `grade` (default: passed). */
export function taskGrade(id: string, grade: (c: Check) => CheckGrade = (c) => passed(c), extra: Partial<TaskGrade> = {}): TaskGrade {
  const t = task(id);
  return { task: t, checks: t.checks.map(grade), notes: [], ...extra };
}

/** The solution graded without a GPU: every check passed, the timing skipped. */
export function solutionTasks(): TaskGrade[] {
  return manifest.tasks.map((t) =>
    taskGrade(t.id, (c) =>
      c.kind === "tuned-time"
        ? skipped(c, "needs a GPU: timing skipped (20 pt not counted in this run)")
        : passed(c, c.kind === "numerics" ? "correct in 5 rounds" : ""),
    ),
  );
}

export { failed, passed, skipped };

export function gradeReport(tasks: readonly TaskGrade[], extra: Partial<GradeReport> = {}): GradeReport {
  const score = tasks.reduce((s, t) => s + t.checks.reduce((p, c) => p + c.points, 0), 0);
  const maxScore = tasks.reduce((s, t) => s + t.checks.reduce((p, c) => p + c.maxPoints, 0), 0);
  return {
    mode: "full",
    manifest,
    submissionDir: "/tmp/tessera-batch-AbC123",
    submissionName: "alice.zip",
    tasks,
    score,
    maxScore,
    numerics: {},
    timings: {},
    tunedScoring: undefined,
    gpu: { unavailable: "--no-gpu was given" },
    scripts: new Map(),
    cuda: {},
    notes: [],
    studentOutput: [],
    elapsedMs: 1234,
    ...extra,
  };
}

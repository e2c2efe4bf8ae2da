/**
 * A grader without the instructor's solution (the copy a student's handout carries): a task that
 * leaves no schedule has no stand-in, so the later tasks run on the student's own schedule without
 * it: their errors are shown, what they complete is not graded there, and numerics say why they
 * were not checked. Nothing crashes for want of the solution.
 */
import { describe, expect, it } from "vitest";
import { type AssignmentBinding, DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { gradeSubmission } from "../src/grade/grade-submission.js";
import { loadManifest } from "../src/manifest/index.js";
import { writeSubmission } from "./submission-cases.js";

const full = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(full.manifestPath);
/** What a handout's grader has: the course-provided functions only. */
const withoutSolution: AssignmentBinding = {
  ...full,
  solution: (name) => (name === "naiveSchedule" ? full.solution(name) : undefined),
  referenceManual: () => undefined,
};

describe("grading without the solution", () => {
  it("shows each unfinished task's own TODO and says why numerics were not checked", async () => {
    const report = await gradeSubmission({ submissionDir: full.root, binding: withoutSolution, manifest, numerics: { rounds: 1 } });
    expect(report.score).toBe(0);
    const errors = report.tasks.filter((t) => t.task.part === 1 && t.task.start === "previous-task").map((t) => t.error);
    expect(errors).toEqual([
      expect.stringContaining("TODO(task 1)"),
      expect.stringContaining("TODO(task 2)"),
      // Its arguments are task 1's shared copies, which do not exist without task 1.
      expect.stringMatching(/cannot call cooperativeFetching: the block "A_shared" it receives does not exist \(an earlier task did not create it\)/),
      expect.stringContaining("TODO(task 4)"),
      expect.stringContaining("TODO(task 5)"),
    ]);
    const numerics = report.tasks.find((t) => t.task.id === "manual-numerics")!.checks[0]!;
    expect(numerics.status).toBe("skipped");
    expect(numerics.feedback).toMatch(/not checked: sharedMemoryTiling left no schedule to continue from, and this copy of the grader carries no solution/);
  }, 120_000);

  it("grades the tasks before a throwing one, shows the later ones' completion as not graded here", async () => {
    const submission = await writeSubmission("throwing-task");
    try {
      const report = await gradeSubmission({ submissionDir: submission.dir, binding: withoutSolution, manifest, numerics: { rounds: 1 } });
      const byId = new Map(report.tasks.map((t) => [t.task.id, t]));
      for (const id of ["shared-memory-tiling", "register-tiling"]) expect(byId.get(id)!.checks.every((c) => c.status === "passed")).toBe(true);
      expect(byId.get("cooperative-fetching")!.error).toMatch(/^cooperativeFetching threw TypeError/);
      for (const id of ["write-cache", "epilogue-fusion"]) expect(byId.get(id)!.error).toMatch(/not graded here: cooperativeFetching left no schedule|threw/);
      expect(report.score).toBe(40);
    } finally {
      await submission.remove();
    }
  }, 120_000);
});

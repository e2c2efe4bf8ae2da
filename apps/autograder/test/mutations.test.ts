/**
 * The mutation table (mutations.ts) graded structure-only through `gradeSubmission`: for each
 * single-mistake edit of the solution, exactly the one check it names fails, every other check of
 * every task passes (or is skipped, as numerics are here), and the feedback names the mistake.
 */
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { type GradeReport, gradeSubmission } from "../src/grade/grade-submission.js";
import { loadManifest } from "../src/manifest/index.js";
import { MUTATIONS, type Mutation } from "./mutations.js";
import { type WrittenSubmission, append, solution, writeDerivedSubmission } from "./submission-cases.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const written: WrittenSubmission[] = [];
afterAll(async () => {
  for (const w of written.splice(0)) await w.remove();
});

async function gradeMutant(m: Mutation): Promise<GradeReport> {
  const edited = solution(...m.edits);
  const submission = await writeDerivedSubmission(m.name, {
    gemm: m.file === "gemm_relu_add.ts" ? edited : solution(),
    trace: m.file === "trace_submission.ts" ? edited : solution(),
  });
  written.push(submission);
  // Only the part the edited file belongs to: part 1 for gemm_relu_add.ts, part 2 for trace_submission.ts.
  const mode = m.file === "gemm_relu_add.ts" ? "evaluate-manual" : "evaluate-tuned";
  return gradeSubmission({ submissionDir: submission.dir, binding, manifest, mode, structureOnly: true });
}

/** "task/check" of every check that did not pass or get skipped. */
function failedChecks(report: GradeReport): string[] {
  return report.tasks.flatMap((t) => t.checks.filter((c) => c.status === "failed").map((c) => `${t.task.id}/${c.check.id}`));
}

/** Every failed check with its feedback and every task error, for the assertion message. */
function whatFailed(report: GradeReport): string {
  return report.tasks
    .flatMap((t) => [
      ...(t.error === undefined ? [] : [`${t.task.id}: ${t.error}`]),
      ...t.checks.filter((c) => c.status === "failed").map((c) => `${t.task.id}/${c.check.id}: ${c.feedback}`),
    ])
    .join("\n");
}

describe("the mutation table", () => {
  it("has at least 40 entries with unique names, covering all five tasks and part 2", () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(MUTATIONS.map((m) => m.name)).size).toBe(MUTATIONS.length);
    const tasks = new Set(MUTATIONS.map((m) => m.fails.task));
    expect([...tasks].sort()).toEqual(["auto-tuning", "cooperative-fetching", "epilogue-fusion", "register-tiling", "shared-memory-tiling", "write-cache"]);
    for (const m of MUTATIONS) {
      const task = manifest.tasks.find((t) => t.id === m.fails.task);
      expect(
        task?.checks.map((c) => c.id),
        m.name,
      ).toContain(m.fails.check);
    }
  });

  it("the unmutated solution fails no check (structure-only)", async () => {
    for (const file of ["gemm_relu_add.ts", "trace_submission.ts"] as const) {
      // A harmless edit: the writer refuses a plain copy of the solution.
      const submission = await writeDerivedSubmission(`unmutated-${file.replace(/\W/g, "-")}`, { gemm: solution(append("// unmutated\n")), trace: solution() });
      written.push(submission);
      const mode = file === "gemm_relu_add.ts" ? "evaluate-manual" : "evaluate-tuned";
      const report = await gradeSubmission({ submissionDir: submission.dir, binding, manifest, mode, structureOnly: true });
      expect(failedChecks(report), whatFailed(report)).toEqual([]);
    }
  }, 60_000);

  describe.each(MUTATIONS.map((m) => [m.name, m] as const))("%s", (_, m) => {
    it(`fails only ${m.fails.task}/${m.fails.check}, naming the mistake`, async () => {
      const report = await gradeMutant(m);
      expect(failedChecks(report), whatFailed(report)).toEqual([`${m.fails.task}/${m.fails.check}`]);
      const task = report.tasks.find((t) => t.task.id === m.fails.task)!;
      const check = task.checks.find((c) => c.check.id === m.fails.check)!;
      expect(`${task.error ?? ""}\n${check.feedback}`).toMatch(m.feedback);
      // Nothing else lost a point: every other task has full marks for what it could earn.
      for (const t of report.tasks) {
        const lost = t.checks.filter((c) => c.points < c.maxPoints && !(t.task.id === m.fails.task && c.check.id === m.fails.check));
        expect(
          lost.map((c) => c.check.id),
          t.task.id,
        ).toEqual([]);
      }
    }, 60_000);
  });
});

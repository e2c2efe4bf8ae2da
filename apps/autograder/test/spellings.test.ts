/**
 * Valid spellings of the solution (spellings.ts) keep full marks: structure-only for every
 * spelling, and end to end (numerics in the simulator, one round) for two of them.
 */
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { type GradeReport, gradeSubmission } from "../src/grade/grade-submission.js";
import { earned } from "../src/grade/task-grade.js";
import { loadManifest } from "../src/manifest/index.js";
import { SPELLINGS, type Spelling } from "./spellings.js";
import { type WrittenSubmission, solution, writeDerivedSubmission } from "./submission-cases.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const written: WrittenSubmission[] = [];
afterAll(async () => {
  for (const w of written.splice(0)) await w.remove();
});

async function gradeSpelling(s: Spelling, structureOnly: boolean): Promise<GradeReport> {
  const submission = await writeDerivedSubmission(`spelling-${s.name}`, { gemm: solution(...s.edits), trace: solution() });
  written.push(submission);
  return gradeSubmission({
    submissionDir: submission.dir,
    binding,
    manifest,
    mode: structureOnly ? "evaluate-manual" : "full",
    structureOnly,
    numerics: { rounds: 1 },
  });
}

function notPassed(report: GradeReport): string[] {
  return report.tasks.flatMap((t) => [
    ...(t.error === undefined ? [] : [`${t.task.id}: ${t.error}`]),
    ...t.checks.filter((c) => c.status === "failed").map((c) => `${t.task.id}/${c.check.id}: ${c.feedback}`),
  ]);
}

describe("valid spellings of the solution keep full marks", () => {
  it.each(SPELLINGS.map((s) => [s.name, s] as const))(
    "%s: every part-1 check passes (structure-only)",
    async (_, s) => {
      const report = await gradeSpelling(s, true);
      expect(notPassed(report)).toEqual([]);
      expect(report.tasks.filter((t) => t.task.part === 1).reduce((sum, t) => sum + earned(t), 0)).toBe(80);
    },
    60_000,
  );

  it.each(["several-reorders", "helpers-and-a-class"])(
    "%s: 80 of 80 end to end, numerics checked on the student's own schedule",
    async (name) => {
      const report = await gradeSpelling(SPELLINGS.find((s) => s.name === name)!, false);
      expect(notPassed(report)).toEqual([]);
      expect([report.score, report.maxScore]).toEqual([80, 80]);
      const numerics = report.tasks.find((t) => t.task.id === "manual-numerics")!.checks[0]!;
      expect(numerics.status).toBe("passed");
      expect(numerics.feedback).toMatch(/checked: your sharedMemoryTiling, registerTiling, cooperativeFetching, writeCache, epilogueFusion \(no stand-ins\)$/);
    },
    120_000,
  );
});

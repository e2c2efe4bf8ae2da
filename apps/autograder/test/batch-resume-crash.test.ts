/**
 * A submission that takes the whole grader down (the process is killed while grading it) costs
 * that submission alone: a resumed batch tries it once more, then records an error outcome for it
 * and goes on with the others.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import type { Submission } from "../src/batch/discover.js";
import { errorOutcome } from "../src/batch/grade-one.js";
import { runBatch } from "../src/batch/run-batch.js";
import type { SubmissionGrader } from "../src/batch/submission-grader.js";
import { loadManifest } from "../src/manifest/index.js";

const binding = assignmentBinding("gemm-relu-add");
const manifest = loadManifest(binding.manifestPath);
const scratch = mkdtempSync(join(tmpdir(), "tessera-batch-crash-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Grading "killer" takes the grader down (here: the run rejects, as a killed process never returns). */
function grader(graded: string[]): SubmissionGrader {
  return {
    concurrency: 1,
    mode: "in-process",
    async grade(sub: Submission) {
      if (sub.name === "killer") throw new Error("the grader process died");
      graded.push(sub.name);
      return errorOutcome(sub.name, "stand-in outcome", 0);
    },
    async dispose() {},
  };
}

describe("a submission that keeps killing the grader", () => {
  it("is tried again once on resume, then recorded as an error while the batch goes on", async () => {
    const dir = join(scratch, "submissions");
    for (const name of ["alice", "killer", "zoe"]) mkdirSync(join(dir, name), { recursive: true });
    const out = join(scratch, "out");
    const settings = { binding, manifest, noGpuReason: "test without a GPU", dir, out };
    const graded: string[] = [];
    await expect(runBatch({ ...settings, grader: grader(graded) })).rejects.toThrow(/died/);
    await expect(runBatch({ ...settings, grader: grader(graded) })).rejects.toThrow(/died/);
    const third = await runBatch({ ...settings, grader: grader(graded) });
    expect(graded).toEqual(["alice", "zoe"]);
    const killer = third.outcomes.find((o) => o.name === "killer");
    expect(killer).toMatchObject({ status: "error", error: expect.stringMatching(/started 2 times and never finished[\s\S]*--force/) });
    expect(third.outcomes.map((o) => o.name)).toEqual(["alice", "killer", "zoe"]);
  });
});

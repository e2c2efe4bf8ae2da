/**
 * results.json is the grader's alone: it is written atomically, never through a link the
 * submission placed, and a results.json the submission brought never stands as this run's result.
 */
import { cpSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { parseGradeArgs, runGrade } from "../src/cli/grade-command.js";
import type { GradeIO } from "../src/cli/io.js";
import { GradescopeResultsSchema } from "../src/report/gradescope.js";

const binding = assignmentBinding("gemm-relu-add");
const scratch = mkdtempSync(join(tmpdir(), "tessera-results-file-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FORGED = JSON.stringify({ score: 100, output: "forged", tests: [] });

/** A submission folder holding a copy of the starter's files plus `extra` (name → text). */
function submission(name: string, broken: boolean): string {
  const dir = join(scratch, name);
  cpSync(join(binding.root, "gemm_relu_add.ts"), join(dir, "gemm_relu_add.ts"));
  cpSync(join(binding.root, "trace_submission.ts"), join(dir, "trace_submission.ts"));
  if (broken) writeFileSync(join(dir, "gemm_relu_add.ts"), "export function sharedMemoryTiling(sch {\n");
  return dir;
}

function quietIO(onErr: (text: string) => void = () => undefined): GradeIO {
  return { interactive: false, stdout: () => undefined, stderr: onErr };
}

describe("results.json", () => {
  it("replaces a link the submission put in its place instead of writing through it", async () => {
    const dir = submission("linked", true);
    const outside = join(scratch, "outside.txt");
    writeFileSync(outside, "not the grader's to write");
    symlinkSync(outside, join(dir, "results.json"));
    const inv = parseGradeArgs(["--dir", dir, "--no-gpu"], binding);
    await runGrade(inv, binding, quietIO());
    expect(readFileSync(outside, "utf8")).toBe("not the grader's to write");
    expect(lstatSync(join(dir, "results.json")).isSymbolicLink()).toBe(false);
    expect(GradescopeResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8"))).score).toBe(0);
  }, 120_000);

  it("says 'not finished, 0 points' from the moment grading starts, so a forged file never stands", async () => {
    const dir = submission("forged", true);
    const path = join(dir, "results.json");
    writeFileSync(path, FORGED);
    const seenWhileGrading: string[] = [];
    const inv = parseGradeArgs(["--dir", dir, "--no-gpu"], binding);
    await runGrade(
      inv,
      binding,
      quietIO(() => void seenWhileGrading.push(readFileSync(path, "utf8"))),
    );
    expect(seenWhileGrading.length).toBeGreaterThan(0);
    const during = GradescopeResultsSchema.parse(JSON.parse(seenWhileGrading[0]!));
    expect(during.score).toBe(0);
    expect(during.output).toMatch(/stopped before it finished/);
    expect(readFileSync(path, "utf8")).not.toBe(FORGED);
  }, 120_000);
});

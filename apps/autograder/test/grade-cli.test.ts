/** `tessera-grade` / `pnpm grade`: options, exit codes, the report, and results.json in every outcome. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { parseGradeArgs, runGrade } from "../src/cli/grade-command.js";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { GradescopeResultsSchema } from "../src/report/gradescope.js";
import { writeSubmission } from "./submission-cases.js";
import { useBundledGraderWorkers } from "./support/bundled-workers.js";

const binding = assignmentBinding("gemm-relu-add");
const solutionDir = join(binding.root, "solution");
const scratch = mkdtempSync(join(tmpdir(), "tessera-grade-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
useBundledGraderWorkers();

function readResults(path: string) {
  return GradescopeResultsSchema.parse(JSON.parse(readFileSync(path, "utf8")));
}

describe("tessera-grade command line", () => {
  it("--help lists the course's options and the exit codes", async () => {
    const io = memoryIO();
    expect(await runGradeCli(["--help"], io)).toBe(0);
    const text = io.out.join("");
    for (const flag of ["--test", "--evaluate-manual", "--evaluate-tuned", "--evaluate-naive", "--show", "--show-cuda", "--dir", "--results", "--no-gpu"]) {
      expect(text).toContain(flag);
    }
    expect(text).toMatch(/Exit code/);
  });

  it.each([
    [["--frobnicate"], /Unknown option '--frobnicate'/],
    [["--test", "--evaluate-tuned"], /choose one of --test, --evaluate-tuned/],
    [["--dir", "/no/such/folder"], /--dir \/no\/such\/folder: no such folder/],
    [["--seed", "x"], /--seed must be an integer ≥ 0, got "x"/],
    [["extra"], /unexpected argument "extra"/],
    [["--results", "/tmp"], /--results \/tmp is a folder; give the path of the results\.json to write/],
  ])("rejects %j with exit code 2 and a message", async (args, message) => {
    const io = memoryIO();
    expect(await runGradeCli(args, io)).toBe(2);
    expect(io.err.join("")).toMatch(message);
  });

  it("grades the solution: report on stdout, valid results.json, exit 0", async () => {
    const results = join(scratch, "solution-results.json");
    const io = memoryIO();
    expect(await runGradeCli(["--dir", solutionDir, "--no-gpu", "--results", results], io)).toBe(0);
    const text = io.out.join("");
    expect(text).toMatch(/Task 1\. Shared memory tiling\s+20 \/ 20/);
    expect(text).toMatch(/Total\s+80 \/ 80\s+\(20 pt need a GPU and were not graded\)/);
    expect(text).toMatch(/GPU: none \(--no-gpu was given\)/);
    const parsed = readResults(results);
    expect(parsed.score).toBe(80);
    expect(parsed.tests.map((t) => t.name)).toContain("Part 2. Auto tuning");
    expect(io.err.join("")).toMatch(/… running gemm_relu_add\.ts/);
  });

  it("--test checks only each part's numerics and prints the IR with --show", async () => {
    const io = memoryIO();
    expect(await runGradeCli(["--dir", solutionDir, "--no-gpu", "--test", "--show"], io)).toBe(0);
    const text = io.out.join("");
    expect(text).toMatch(
      /Part 1 \(your manual schedule\): PASS — correct on all \d+ elements the sampled blocks wrote in 5 rounds .*23 of the 1024 thread blocks of the 2048×2048×2048 kernel/,
    );
    expect(text).toMatch(/Part 2 \(your tuned schedule \(trace_submission\.ts\)\): PASS — correct/);
    expect(text).toContain("No numerics failure.");
    expect(text).not.toMatch(/^Task 1\.| pt\)/m);
    expect(text).toMatch(/── IR after Task 5\. Epilogue fusion \(epilogueFusion\) ──/);
    expect(text).toContain('T.block("A_shared")');
    expect(text).not.toMatch(/Total/);
  });

  it("--test exits 1 and says so when a part's numerics fail (regression: structural checks printed, exit 0)", async () => {
    const racy = await writeSubmission("racy-trace");
    try {
      const io = memoryIO();
      expect(await runGradeCli(["--dir", racy.dir, "--no-gpu", "--test"], io)).toBe(1);
      const text = io.out.join("");
      expect(text).toMatch(/Part 1 \(your manual schedule\): PASS/);
      expect(text).toMatch(/Part 2 \(your tuned schedule \(trace_submission\.ts\)\): FAIL — /);
      expect(text).toContain("Numerics FAILED (part 2): exit code 1.");
      expect(text).not.toMatch(/ pt\)|Total/);
    } finally {
      await racy.remove();
    }
  });

  it("a syntax error is shown once at file:line:column, each task refers to it; no 0-point test of results.json passes", async () => {
    const broken = await writeSubmission("syntax-error");
    const results = join(scratch, "syntax-results.json");
    try {
      const io = memoryIO();
      expect(await runGradeCli(["--dir", broken.dir, "--no-gpu", "--results", results], io)).toBe(0);
      const text = io.out.join("");
      expect(text.match(/gemm_relu_add\.ts:\d+:\d+: Expected "\)" but found ";"/g)).toHaveLength(1);
      expect(text.match(/✗ not graded: gemm_relu_add\.ts could not be compiled \(see above\)/g)).toHaveLength(5);
      const parsed = readResults(results);
      expect(parsed.tests.filter((t) => t.max_score === 0 && t.status === "passed")).toEqual([]);
      expect(parsed.tests.find((t) => t.name === "Part 1 numerical correctness")?.output).toMatch(
        /^NOT GRADED in this run: not checked: none of your part-1 tasks completed/,
      );
      expect(parsed.tests.find((t) => t.name === "Part 2. Auto tuning")).toMatchObject({ score: 0, max_score: 20 });
      expect(parsed.output.match(/Expected "\)" but found ";"/g)).toHaveLength(1);
    } finally {
      await broken.remove();
    }
  });

  it("what the student's code printed is fenced and labelled as theirs, never at column 0", async () => {
    const fake = await writeSubmission("fake-output");
    try {
      const io = memoryIO();
      expect(await runGradeCli(["--dir", fake.dir, "--no-gpu", "--results", join(scratch, "fake-results.json")], io)).toBe(0);
      const text = io.out.join("");
      expect(text).toContain("── output of your code (gemm_relu_add.ts) ──");
      expect(text).toContain("│ Score: 100/100");
      expect(text).not.toMatch(/^Score: 100\/100/m);
      expect(text).not.toMatch(/^\{/m);
    } finally {
      await fake.remove();
    }
  });

  it("--evaluate-tuned --show-cuda prints the tuned schedule's CUDA", async () => {
    const io = memoryIO();
    expect(await runGradeCli(["--dir", solutionDir, "--no-gpu", "--evaluate-tuned", "--show-cuda"], io)).toBe(0);
    const text = io.out.join("");
    expect(text).toMatch(/── CUDA of your tuned schedule \(trace_submission\.ts\) ──/);
    expect(text).toMatch(/__global__ void __launch_bounds__\(256\)/);
  });

  it("a manifest it cannot read: exit 2 saying where the grader looks (no stack trace), and still a valid results.json", async () => {
    const results = join(scratch, "crash-results.json");
    const io = memoryIO();
    const broken = { ...binding, manifestPath: join(scratch, "missing-manifest.json") };
    const inv = parseGradeArgs(["--dir", solutionDir, "--no-gpu", "--results", results], broken);
    expect(await runGrade(inv, broken, io)).toBe(2);
    const err = io.err.join("");
    expect(err).toMatch(/cannot read grading manifest .*missing-manifest\.json: no such file\n\(the assignment folder is .*TESSERA_ASSIGNMENT_ROOT/);
    expect(err).not.toMatch(/\n +at /);
    const parsed = readResults(results);
    expect(parsed.score).toBe(0);
    expect(parsed.output).toMatch(/could not finish grading[\s\S]*cannot read grading manifest .*missing-manifest\.json: no such file/);
  });
});

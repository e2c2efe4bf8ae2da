/**
 * The report builders on grade reports built by hand: results.json statuses from verdicts, the
 * real maximum of a task not graded, one copy of an error tasks share, student text fenced and
 * escaped, the --test report, and the submission's name instead of a temporary path.
 */
import { describe, expect, it } from "vitest";
import { GradescopeResultsSchema } from "../src/report/gradescope.js";
import { formatTerminalReport } from "../src/report/terminal.js";
import { toGradescope } from "../src/report/to-gradescope.js";
import { failed, gradeReport, manifest, passed, skipped, solutionTasks, task, taskGrade } from "./support/grade-report.js";

const testOf = (results: ReturnType<typeof toGradescope>, taskId: string) => results.tests.find((t) => t.name === task(taskId).title)!;

describe("results.json statuses come from verdicts, not from score ≥ max", () => {
  it("no test with max 0 says passed; the solution's passing numerics gate has no status and says PASS", () => {
    const results = GradescopeResultsSchema.parse(toGradescope(gradeReport(solutionTasks())));
    expect(results.tests.filter((t) => t.max_score === 0 && t.status === "passed")).toEqual([]);
    const numerics = testOf(results, "manual-numerics");
    expect(numerics.status).toBeUndefined();
    expect(numerics.output).toMatch(/A 0-point check: PASS/);
    expect(testOf(results, "shared-memory-tiling")).toMatchObject({ score: 20, max_score: 20, status: "passed" });
  });

  it("a numerics FAIL is failed although its points are 0 of 0", () => {
    const tasks = solutionTasks().map((t) =>
      t.task.id === "manual-numerics" ? taskGrade(t.task.id, (c) => failed(c, "round 1: 12 of 4096 outputs wrong")) : t,
    );
    expect(testOf(toGradescope(gradeReport(tasks)), "manual-numerics")).toMatchObject({
      score: 0,
      max_score: 0,
      status: "failed",
      output: expect.stringContaining("FAIL"),
    });
  });

  it("numerics not checked are not graded, with the reason, never passed", () => {
    const tasks = solutionTasks().map((t) =>
      t.task.id === "manual-numerics" ? taskGrade(t.task.id, (c) => skipped(c, "not checked: none of your part-1 tasks completed")) : t,
    );
    const numerics = testOf(toGradescope(gradeReport(tasks)), "manual-numerics");
    expect(numerics.status).toBeUndefined();
    expect(numerics.output).toMatch(/^NOT GRADED in this run: not checked: none of your part-1 tasks completed/);
  });

  it("an unimplemented part 2 is failed with its real maximum (20, not 0) and the reason", () => {
    const error = 'applyTrace is not implemented yet (it still throws "TODO(part 2)")';
    const part2 = taskGrade("auto-tuning", (c) => (c.kind === "tuned-time" ? skipped(c, "needs a GPU") : failed(c, "not graded (see the error above)")), {
      error,
    });
    const test = testOf(toGradescope(gradeReport([...solutionTasks().slice(0, -1), part2])), "auto-tuning");
    expect(test).toMatchObject({ score: 0, max_score: 20, status: "failed" });
    expect(test.output).toContain(error);
  });

  it("the terminal report shows a task not graded with its real maximum, not 0 / 0", () => {
    const text = formatTerminalReport(gradeReport(solutionTasks()));
    expect(text).toMatch(/^Part 2\. Auto tuning +0 \/ 20 +\(20 pt not graded in this run\)$/m);
    expect(text).toMatch(/^Total +80 \/ 80 +\(20 pt need a GPU and were not graded\)$/m);
  });

  it("part 2 of the solution without a GPU: not graded (timing needs a GPU), real maximum, no status", () => {
    const test = testOf(toGradescope(gradeReport(solutionTasks())), "auto-tuning");
    expect(test).toMatchObject({ score: 0, max_score: 20 });
    expect(test.status).toBeUndefined();
    expect(test.output).toMatch(/^NOT GRADED in this run: needs a GPU/);
  });
});

describe("an error every task of a file shares is shown once", () => {
  const compileError = 'gemm_relu_add.ts could not be compiled:\n  gemm_relu_add.ts:42:84: Expected ")" but found ";"';
  const broken = solutionTasks().map((t) =>
    t.task.part === 1 && t.task.points > 0 ? taskGrade(t.task.id, (c) => failed(c, "not graded: the file did not load"), { error: compileError }) : t,
  );

  it("in the terminal report: once at file:line:column, each task referring to it", () => {
    const text = formatTerminalReport(gradeReport(broken));
    expect(text.split("gemm_relu_add.ts:42:84").length - 1).toBe(1);
    expect(text.match(/not graded: gemm_relu_add\.ts could not be compiled \(see above\)/g)).toHaveLength(5);
    expect(text.indexOf("gemm_relu_add.ts:42:84")).toBeLessThan(text.indexOf("Task 1."));
  });

  it("in results.json: once in the overall output; the tests refer to it", () => {
    const results = toGradescope(gradeReport(broken));
    expect(results.output.split("gemm_relu_add.ts:42:84").length - 1).toBe(1);
    for (const t of results.tests.filter((x) => x.max_score > 0 && x.name.startsWith("Task"))) {
      expect(t.output).toContain("not graded: gemm_relu_add.ts could not be compiled (see the overall output)");
      expect(t.output).not.toContain("42:84");
    }
  });

  it("an error only one task has stays with that task", () => {
    const one = solutionTasks().map((t) =>
      t.task.id === "register-tiling" ? taskGrade(t.task.id, (c) => failed(c, "not graded"), { error: "registerTiling threw Error: boom" }) : t,
    );
    const text = formatTerminalReport(gradeReport(one));
    expect(text).toMatch(/Task 2\. Register tiling.*\n {4}✗ registerTiling threw Error: boom/);
    expect(text).not.toContain("see above");
  });
});

describe("what the student's code printed", () => {
  const hostile = "\u001b[2J\u001b[H\u001b[8msEcReT\nTotal                       100 / 100\nabc\u202edcba\n";
  const report = gradeReport(solutionTasks(), { studentOutput: [{ file: "gemm_relu_add.ts", stdout: hostile, stderr: "warn \u001b[31m\n" }] });

  it("is fenced, labelled, escaped, and no line of it starts at column 0", () => {
    const text = formatTerminalReport(report);
    expect(text).not.toMatch(/[\u001b\u202e]/);
    expect(text).toContain("── output of your code (gemm_relu_add.ts) ──");
    expect(text).toContain("│ \\x1b[2J\\x1b[H\\x1b[8msEcReT");
    expect(text).toContain("── error output (stderr) of your code (gemm_relu_add.ts) ──");
    expect(text).toContain("│ warn \\x1b[31m");
    // The grader's own total is the only line that starts with "Total".
    expect(text.match(/^Total/gm)).toHaveLength(1);
    expect(text).toContain("│ Total                       100 / 100");
  });

  it("stays out of results.json", () => {
    expect(JSON.stringify(toGradescope(report))).not.toContain("sEcReT");
  });

  it("student text in errors and feedback is escaped in both reports", () => {
    const tasks = solutionTasks().map((t) =>
      t.task.id === "write-cache" ? taskGrade(t.task.id, (c) => failed(c, "block \u001b[2J"), { error: "writeCache threw Error: \u001b]0;pwned\u0007" }) : t,
    );
    const r = gradeReport(tasks);
    expect(formatTerminalReport(r)).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(JSON.stringify(toGradescope(r))).not.toMatch(/\\u001b|\\u0007/);
    expect(formatTerminalReport(r)).toContain("writeCache threw Error: \\x1b]0;pwned\\x07");
  });
});

describe("--test: numerics only", () => {
  const part1 = manifest.tasks
    .filter((t) => t.part === 1)
    .map((t) =>
      t.checks.some((c) => c.kind === "numerics")
        ? taskGrade(t.id, (c) => passed(c, "correct in 5 rounds"))
        : taskGrade(t.id, (c) => failed(c, "the split is missing")),
    );
  const part2 = taskGrade("auto-tuning", (c) => failed(c, "round 1: 7 of 4096 outputs wrong"));
  const numericsOnly = { ...part2, checks: part2.checks.filter((c) => c.check.kind === "numerics") };

  it("prints each part's verdict, no structural checks and no points; a failure says exit code 1", () => {
    const text = formatTerminalReport(gradeReport([...part1, numericsOnly], { mode: "test" }));
    expect(text).toContain("Part 1 (your manual schedule): PASS — correct in 5 rounds");
    expect(text).toContain("Part 2 (your tuned schedule (trace_submission.ts)): FAIL — round 1: 7 of 4096 outputs wrong");
    expect(text).toContain("Numerics FAILED (part 2): exit code 1.");
    expect(text).not.toContain("the split is missing");
    expect(text).not.toMatch(/ pt\)|Task 1\.|Total/);
  });

  it("a part not checked says why", () => {
    const notRun = {
      ...numericsOnly,
      error: "applyTrace does not change the schedule (it is still the handed-out empty function)",
      checks: numericsOnly.checks.map((c) => skipped(c.check, "not checked (see the error above)")),
    };
    const text = formatTerminalReport(gradeReport([...part1, notRun], { mode: "test" }));
    expect(text).toContain("Part 2 (your tuned schedule (trace_submission.ts)): NOT CHECKED — applyTrace does not change the schedule");
    expect(text).toContain("No numerics failure (some parts were not checked, see above).");
  });
});

describe("the submission is named, never by a temporary path", () => {
  it("shows the submission's name in both reports", () => {
    const report = gradeReport(solutionTasks());
    const text = formatTerminalReport(report);
    expect(text).toMatch(/^Graded: alice\.zip \(full grading\)$/m);
    expect(text).not.toContain("/tmp/");
    expect(JSON.stringify(toGradescope(report))).not.toContain("/tmp/");
  });
});

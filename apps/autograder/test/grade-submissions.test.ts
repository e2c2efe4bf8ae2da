/**
 * Whole submissions through `gradeSubmission`, without a GPU: the starter, the solution, and the
 * broken and hostile submissions of submission-cases.ts (each the solution's or the starter's
 * files with the edits of its case, written to a temp folder per test). For every case: the points
 * of every task, and the error or feedback the student reads, which must name the problem.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Schedule } from "@tessera/schedule";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { type GradeReport, gradeSubmission } from "../src/grade/grade-submission.js";
import { simulatedNumericsMemo } from "../src/grade/numerics-memo.js";
import { MAX_TRACE_INSTRUCTIONS, replayTrace } from "../src/grade/replay.js";
import { type CheckGrade, type TaskGrade, earned } from "../src/grade/task-grade.js";
import { loadManifest } from "../src/manifest/index.js";
import { formatTerminalReport } from "../src/report/terminal.js";
import { toGradescope } from "../src/report/to-gradescope.js";
import type { SandboxLimits } from "../src/sandbox/index.js";
import { type CaseName, type WrittenSubmission, solutionImport, writeSubmission } from "./submission-cases.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
/** Small limits for the cases that hit them (an infinite loop, a memory bomb): they are reached fast. */
const TIGHT: SandboxLimits = { timeoutMs: 5000, heapMb: 256 };

type TaskId = "shared-memory-tiling" | "register-tiling" | "cooperative-fetching" | "write-cache" | "epilogue-fusion";
const PART1: readonly TaskId[] = ["shared-memory-tiling", "register-tiling", "cooperative-fetching", "write-cache", "epilogue-fusion"];
const FUNCTIONS: Record<TaskId, string> = {
  "shared-memory-tiling": "sharedMemoryTiling",
  "register-tiling": "registerTiling",
  "cooperative-fetching": "cooperativeFetching",
  "write-cache": "writeCache",
  "epilogue-fusion": "epilogueFusion",
};
/** Full marks of each part-1 task (the manifest's points). */
const FULL: Record<TaskId, number> = {
  "shared-memory-tiling": 20,
  "register-tiling": 20,
  "cooperative-fetching": 20,
  "write-cache": 10,
  "epilogue-fusion": 10,
};

function grade(submissionDir: string, limits?: SandboxLimits): Promise<GradeReport> {
  return gradeSubmission({ submissionDir, binding, manifest, numerics: { rounds: 1 }, ...(limits === undefined ? {} : { limits }) });
}

/** The case folders written by the running test, removed after it. */
const written: WrittenSubmission[] = [];
afterEach(async () => {
  for (const submission of written.splice(0)) await submission.remove();
});

/** Writes the submission of case `name` to a fresh temp folder (removed after the test); returns the folder. */
async function submissionOf(name: CaseName): Promise<string> {
  const submission = await writeSubmission(name);
  written.push(submission);
  return submission.dir;
}

async function gradeCase(name: CaseName, limits?: SandboxLimits): Promise<GradeReport> {
  return grade(await submissionOf(name), limits);
}

function taskOf(report: GradeReport, id: string): TaskGrade {
  const t = report.tasks.find((g) => g.task.id === id);
  if (t === undefined) throw new Error(`the report has no task ${id} (it has ${report.tasks.map((g) => g.task.id).join(", ")})`);
  return t;
}

function checkOf(report: GradeReport, taskId: string, checkId: string): CheckGrade {
  const c = taskOf(report, taskId).checks.find((g) => g.check.id === checkId);
  if (c === undefined) throw new Error(`task ${taskId} has no check ${checkId}`);
  return c;
}

/** Points earned per task id. */
function pointsByTask(report: GradeReport): Record<string, number> {
  return Object.fromEntries(report.tasks.map((t) => [t.task.id, earned(t)]));
}

/** The points of every task: part 1 full marks except `part1`, the numerics task 0 pt, part 2 `part2`. */
function expectPoints(report: GradeReport, part1: Partial<Record<TaskId, number>>, part2 = 0): void {
  expect(pointsByTask(report)).toEqual({ ...FULL, ...part1, "manual-numerics": 0, "auto-tuning": part2 });
}

/** Ids of the checks of a task that did not pass. */
function failedChecks(report: GradeReport, taskId: string): string[] {
  return taskOf(report, taskId)
    .checks.filter((c) => c.status !== "passed")
    .map((c) => c.check.id);
}

/** The task completed and every check passed, with no error. */
function expectAllPassed(report: GradeReport, id: string): void {
  const t = taskOf(report, id);
  expect(t.error).toBeUndefined();
  expect(t.checks.length).toBeGreaterThan(0);
  expect(t.checks.map((c) => [c.check.id, c.status])).toEqual(t.checks.map((c) => [c.check.id, "passed"]));
}

/** The tasks after `failed` (which left no schedule) were graded on the solution's version of it. */
function expectGradedOnSolution(report: GradeReport, failed: TaskId): void {
  for (const id of PART1.slice(PART1.indexOf(failed) + 1)) {
    expect(taskOf(report, id).notes.join("\n")).toContain(
      `graded on top of the solution's version of ${failed} (yours left no schedule: it did not complete or could not be replayed)`,
    );
  }
  expect(report.notes).toContain(`The manual schedule was checked with the solution's version of: ${failed}.`);
}

/** Every part-1 task's schedule is the student's own: no stand-in notes. */
function expectNoStandIns(report: GradeReport): void {
  for (const id of PART1) expect(taskOf(report, id).notes).toEqual([]);
  expect(report.notes.join("\n")).not.toMatch(/solution's version/);
}

/**
 * The manual numerics ran on the student's own schedule and failed with `why`, but part 1 is not
 * zeroed: `mistakes` (checks that already failed) explain it, and the numerics line says so.
 */
function expectNumericsExcused(report: GradeReport, why: RegExp, mistakes: readonly string[]): void {
  const numerics = checkOf(report, "manual-numerics", "manual-schedule-correct");
  expect(numerics.status).toBe("failed");
  expect(numerics.feedback).toMatch(why);
  expect(numerics.feedback).toMatch(/; checked: your sharedMemoryTiling, registerTiling, cooperativeFetching, writeCache, epilogueFusion \(no stand-ins\)$/);
  expect(taskOf(report, "manual-numerics").notes).toEqual([
    `not zeroing part 1: your schedule has mistakes that checks above already name and charge (${mistakes.join(", ")}), and a wrong result is counted once, there`,
  ]);
}

/** Manual and tuned numerics ran (in the simulator, on sampled blocks of the full-size kernel) and passed. */
function expectNumericsPass(report: GradeReport, rounds = 1): void {
  expect(checkOf(report, "manual-numerics", "manual-schedule-correct").status).toBe("passed");
  expect(report.numerics.manual).toMatchObject({ passed: true, backend: "simulator", size: manifest.numerics.sizes.full, sample: { gridBlocks: 1024 } });
  expect(report.numerics.manual?.rounds).toHaveLength(rounds);
  expect(checkOf(report, "auto-tuning", "tuned-schedule-correct").status).toBe("passed");
  expect(report.numerics.tuned?.passed).toBe(true);
}

/** Part 2 of the (unchanged) solution trace: replays, correct, timing skipped for want of a GPU. */
function expectTunedSolution(report: GradeReport): void {
  const tuned = taskOf(report, "auto-tuning");
  expect(tuned.error).toBeUndefined();
  expect(checkOf(report, "auto-tuning", "trace-replays").status).toBe("passed");
  expect(checkOf(report, "auto-tuning", "tuned-schedule-correct")).toMatchObject({
    status: "passed",
    feedback: expect.stringMatching(/^correct on all \d+ elements the sampled blocks wrote in 1 rounds of random inputs/),
  });
  const time = checkOf(report, "auto-tuning", "tuned-time");
  expect(time).toMatchObject({ status: "skipped", points: 0, maxPoints: 0 });
  expect(time.feedback).toMatch(/needs a GPU/);
}

/** 1-based number of the first code line (not a comment) of the gemm_relu_add.ts in `dir` containing `text`. */
function lineOf(dir: string, text: string): number {
  const lines = readFileSync(join(dir, "gemm_relu_add.ts"), "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(text) && !/^\s*(\/\/|\/\*|\*)/.test(l));
  if (at < 0) throw new Error(`${dir}/gemm_relu_add.ts has no line containing ${text}`);
  return at + 1;
}

/** `text` as a regular expression that matches exactly it. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Everything a student reads in the report, as one text. */
function studentText(report: GradeReport): string {
  return [...report.notes, ...report.tasks.flatMap((t) => [t.error ?? "", ...t.notes, ...t.checks.map((c) => c.feedback)])].join("\n");
}

type Descriptors = Record<string, { value?: unknown; get?: unknown; set?: unknown }>;

function scheduleMembers(): Descriptors {
  return Object.getOwnPropertyDescriptors(Schedule.prototype) as Descriptors;
}

/** The grader's own Schedule class is exactly as before, and still records what it does. */
function expectScheduleUntouched(before: Descriptors): void {
  const after = scheduleMembers();
  expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  for (const [name, d] of Object.entries(before)) {
    const a = after[name]!;
    expect(a.value === d.value && a.get === d.get && a.set === d.set, `Schedule.prototype.${name} was replaced`).toBe(true);
  }
  const sch = new Schedule(binding.workload(64));
  const [i] = sch.getLoops(sch.getBlock("gemm"));
  const [outer] = sch.split(i, [null, 16]);
  sch.bind(outer, "blockIdx.x");
  expect(sch.get(outer).threadTag).toBe("blockIdx.x");
  expect(sch.trace.instructions.map((inst) => inst.kind.name)).toEqual(["GetBlock", "GetLoops", "Split", "Bind"]);
}

describe("grading the handed-out files", () => {
  it("the untouched starter scores 0: every task says it is not implemented yet, applyTrace that it is still empty", async () => {
    const report = await grade(binding.root);

    expect(report.score).toBe(0);
    // Without a GPU the 20 pt of tuned timing are left out for every submission.
    expect(report.maxScore).toBe(80);
    expectPoints(report, { "shared-memory-tiling": 0, "register-tiling": 0, "cooperative-fetching": 0, "write-cache": 0, "epilogue-fusion": 0 });
    PART1.forEach((id, n) => {
      const fn = FUNCTIONS[id];
      expect(taskOf(report, id).error).toBe(`${fn} is not implemented yet (it still throws "TODO(task ${n + 1}): ${fn} is not implemented yet")`);
      for (const c of taskOf(report, id).checks)
        expect(c).toMatchObject({ status: "failed", points: 0, feedback: "not graded: the task's function did not complete" });
    });
    // Nothing of the student's ran to completion: no IR to show, no manual numerics.
    expect(report.scripts.size).toBe(0);
    expect(report.numerics.manual).toBeUndefined();
    expect(checkOf(report, "manual-numerics", "manual-schedule-correct")).toMatchObject({
      points: 0,
      feedback: "not checked: none of your part-1 tasks completed",
    });

    const tuned = taskOf(report, "auto-tuning");
    expect(tuned.error).toMatch(
      /^applyTrace does not change the schedule \(it is still the handed-out empty function\): paste the applyTrace that `pnpm grade --tune` prints$/,
    );
    expect(tuned.checks.map((c) => [c.check.id, c.status, c.points, c.maxPoints])).toEqual([
      ["trace-replays", "failed", 0, 0],
      ["tuned-schedule-correct", "skipped", 0, 0],
      ["tuned-time", "skipped", 0, 0],
    ]);
    // One mistake, one failed check: the numerics say why they were not checked.
    expect(checkOf(report, "auto-tuning", "tuned-schedule-correct").feedback).toBe("not checked: there is no schedule to check (see the error above)");
    expect(report.numerics.tuned).toBeUndefined();
  });

  it("the solution passes every check and both numerics: 80 of 80, the tuned time skipped for want of a GPU", async () => {
    const report = await grade(join(binding.root, "solution"));

    expect(report.score).toBe(80);
    expect(report.maxScore).toBe(80);
    expectPoints(report, {});
    for (const id of PART1) expectAllPassed(report, id);
    expectNumericsPass(report);
    expectTunedSolution(report);
    expect(checkOf(report, "auto-tuning", "tuned-time").feedback).toBe("needs a GPU: timing skipped (20 pt not counted in this run)");
    expect(report.gpu).toHaveProperty("unavailable");
    expect(report.notes[0]).toMatch(/^No GPU\b.*timing is skipped/);
    expect([...report.scripts.keys()]).toEqual([...PART1]);

    // Graded again in this process: the simulated numerics come from memory (numerics-memo.ts), with the same verdicts.
    const ran = simulatedNumericsMemo.stats.misses;
    const again = await grade(join(binding.root, "solution"));
    expect(simulatedNumericsMemo.stats.misses).toBe(ran);
    expect(again.score).toBe(80);
    expect(again.numerics).toEqual(report.numerics);
    expect(again.tasks.map((t) => t.checks.map((c) => [c.check.id, c.points, c.feedback]))).toEqual(
      report.tasks.map((t) => t.checks.map((c) => [c.check.id, c.points, c.feedback])),
    );
  });
});

describe("broken submissions: the failed task scores 0 and names the problem, the others are graded on the solution's", () => {
  it("a syntax error fails every part-1 task with the compiler's file:line:column; part 2 is graded normally", async () => {
    const dir = await submissionOf("syntax-error");
    const line = lineOf(dir, "[null, threadTileX] as [LoopRV, LoopRV];");
    const report = await grade(dir);

    expect(report.score).toBe(0);
    expect(report.maxScore).toBe(80);
    expectPoints(report, { "shared-memory-tiling": 0, "register-tiling": 0, "cooperative-fetching": 0, "write-cache": 0, "epilogue-fusion": 0 });
    for (const id of PART1) {
      const t = taskOf(report, id);
      expect(t.error).toMatch(new RegExp(`^gemm_relu_add\\.ts could not be compiled:\\n  gemm_relu_add\\.ts:${line}:84: Expected "\\)" but found ";"\\n`));
      expect(t.error).toContain("const [threadX, regX] = sch.split(innerX, [null, threadTileX] as [LoopRV, LoopRV];");
      // Regression: the checks say the file did not load (not that a function "did not complete").
      for (const c of t.checks) expect(c.feedback).toBe("not graded: gemm_relu_add.ts did not load");
    }
    expect(checkOf(report, "manual-numerics", "manual-schedule-correct").feedback).toBe("not checked: none of your part-1 tasks completed");
    expectTunedSolution(report);
  });

  it("a missing export fails task 2 by name; tasks 1, 3, 4 and 5 get full marks on the solution's task 2", async () => {
    const report = await gradeCase("missing-export");

    expect(report.score).toBe(60);
    expectPoints(report, { "register-tiling": 0 });
    expect(taskOf(report, "register-tiling").error).toBe("gemm_relu_add.ts does not export `registerTiling`");
    for (const id of PART1.filter((t) => t !== "register-tiling")) expectAllPassed(report, id);
    expectGradedOnSolution(report, "register-tiling");
    expectNumericsPass(report);
    // The numerics line says whose tasks it judged.
    expect(checkOf(report, "manual-numerics", "manual-schedule-correct").feedback).toMatch(
      /^correct on all .*; checked: your sharedMemoryTiling, cooperativeFetching, writeCache, epilogueFusion, with the solution's registerTiling \(yours did not complete\)$/,
    );
  });

  it("task 1 completed with a wrong split and tasks 2–5 throw: the numerics judge the student's task 1, and its failure is charged once, to the split check", async () => {
    // Before: task 1 lost 8 (split, loop order, copy size), then gave way to the solution's and numerics were not checked.
    const report = await gradeCase("wrong-split-then-todo");

    expect(report.score).toBe(17);
    expectPoints(report, { "shared-memory-tiling": 17, "register-tiling": 0, "cooperative-fetching": 0, "write-cache": 0, "epilogue-fusion": 0 });
    expect(failedChecks(report, "shared-memory-tiling")).toEqual(["split-i-by-tile-x"]);
    const numerics = checkOf(report, "manual-numerics", "manual-schedule-correct");
    expect(numerics.status).toBe("failed");
    expect(numerics.feedback).toMatch(
      /^the schedule cannot be built for the GPU .*all loops bound to threadIdx\.x must have the same extent.*; checked: your sharedMemoryTiling, with the solution's registerTiling, cooperativeFetching, writeCache, epilogueFusion \(yours did not complete\)$/,
    );
    expect(taskOf(report, "manual-numerics").notes).toEqual([
      "not zeroing part 1: your schedule has mistakes that checks above already name and charge (shared-memory-tiling/split-i-by-tile-x), and a wrong result is counted once, there",
    ]);
  });

  it("a task that throws scores 0 with the error's name, message and a stack line in gemm_relu_add.ts", async () => {
    const dir = await submissionOf("throwing-task");
    const helperLine = lineOf(dir, "return loops.slice(-2)");
    const callLine = lineOf(dir, "rowAndColumn(loopsByStage, sch.get(stage).name)");
    const report = await grade(dir);

    expect(report.score).toBe(60);
    expectPoints(report, { "cooperative-fetching": 0 });
    const error = taskOf(report, "cooperative-fetching").error ?? "";
    expect(error.split("\n")[0]).toBe("cooperativeFetching threw TypeError: Cannot read properties of undefined (reading 'slice')");
    expect(error).toMatch(
      new RegExp(`\\n +at rowAndColumn \\(gemm_relu_add\\.ts:${helperLine}:\\d+\\)\\n +at cooperativeFetching \\(gemm_relu_add\\.ts:${callLine}:\\d+\\)`),
    );
    // Only the student's frames, with paths relative to the submission.
    expect(error).not.toMatch(/tessera-grade-|\/tmp\/|harness|node:internal/);
    for (const id of PART1.filter((t) => t !== "cooperative-fetching")) expectAllPassed(report, id);
    expectGradedOnSolution(report, "cooperative-fetching");
    expectNumericsPass(report);
  });

  it("an infinite loop is stopped at the time limit: task 4 scores 0, tasks 1–3 and 5 full", async () => {
    const report = await gradeCase("infinite-loop", TIGHT);

    expect(report.score).toBe(70);
    expectPoints(report, { "write-cache": 0 });
    expect(taskOf(report, "write-cache").error).toBe("writeCache did not finish: it was stopped after the time limit of 5 s (an infinite loop?)");
    for (const id of PART1.filter((t) => t !== "write-cache")) expectAllPassed(report, id);
    expectGradedOnSolution(report, "write-cache");
    expectNumericsPass(report);
  });

  it("a memory bomb is stopped at the heap limit: task 2 scores 0 with an out-of-memory message, the others full", async () => {
    // Its own limits: near its memory limit V8 collects garbage again and again before it gives up
    // (seconds at 128 MB), so the time limit must not be what stops it.
    const report = await gradeCase("memory-bomb", { timeoutMs: 40_000, heapMb: 128 });

    expect(report.score).toBe(60);
    expectPoints(report, { "register-tiling": 0 });
    expect(taskOf(report, "register-tiling").error).toBe("registerTiling did not finish: it ran out of memory (the limit is 128 MB)");
    for (const id of PART1.filter((t) => t !== "register-tiling")) expectAllPassed(report, id);
    expectGradedOnSolution(report, "register-tiling");
    expectNumericsPass(report);
  });

  it("a trace longer than the grader replays fails that task (task 5) with the count", async () => {
    const report = await gradeCase("huge-trace");

    expect(report.score).toBe(70);
    expectPoints(report, { "epilogue-fusion": 0 });
    const error = taskOf(report, "epilogue-fusion").error ?? "";
    const ran = Number(/^the schedule ran (\d+) instructions; at most 5000 are graded$/.exec(error)?.[1]);
    expect(ran).toBeGreaterThan(6000);
    for (const c of taskOf(report, "epilogue-fusion").checks) expect(c.feedback).toBe("not graded: the schedule it recorded could not be replayed");
    for (const id of PART1.filter((t) => t !== "epilogue-fusion")) expectAllPassed(report, id);
    expectNumericsPass(report);
  });

  it("refuses an over-long trace before validating it (regression: the parent did all the validation work first)", () => {
    const garbage = { format: "tessera-trace", version: 1, instructions: new Array(MAX_TRACE_INSTRUCTIONS + 1).fill({ kind: "NoSuchKind" }), decisions: [] };
    const start = new Schedule(binding.workload(64));
    expect(replayTrace(garbage, start)).toEqual({
      ok: false,
      error: `the schedule ran ${MAX_TRACE_INSTRUCTIONS + 1} instructions; at most ${MAX_TRACE_INSTRUCTIONS} are graded`,
    });
    // TVM's layout and JSON text are counted the same way; a short garbage trace is still reported as invalid.
    expect(replayTrace([garbage.instructions, []], start)).toMatchObject({ ok: false, error: expect.stringMatching(/^the schedule ran 5001 instructions/) });
    expect(replayTrace(JSON.stringify(garbage), start)).toMatchObject({ ok: false, error: expect.stringMatching(/^the schedule ran 5001 instructions/) });
    expect(replayTrace({ ...garbage, instructions: [{ kind: "NoSuchKind" }] }, start)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the recorded schedule trace is not valid/),
    });
    expect(start.trace.instructions).toHaveLength(0);
  });
});

describe("structural mistakes: only the checks that see the mistake fail", () => {
  it("a wrong tile split (i by 32) costs only task 1's split-i check, naming 32 and 64; tasks 2–5 are graded on the student's own schedule", async () => {
    const report = await gradeCase("wrong-tile-split");

    // Regression: the split also cost the loop order and A's copy size (by extents), 8 of 20 in all.
    expect(report.score).toBe(77);
    expectPoints(report, { "shared-memory-tiling": 17 });
    expect(failedChecks(report, "shared-memory-tiling")).toEqual(["split-i-by-tile-x"]);
    expect(checkOf(report, "shared-memory-tiling", "split-i-by-tile-x").feedback).toBe(
      'the i loop of "gemm" is split into tiles of 32, not 64 (its loops: i_0 (extent 64, bound to blockIdx.x), i_1 (extent 32))',
    );
    for (const id of PART1.slice(1)) expectAllPassed(report, id);
    expectNoStandIns(report);
    // The student's own schedule cannot be built (the thread extents follow the wrong tile): charged once, to the split.
    expectNumericsExcused(report, /all loops bound to threadIdx\.x must have the same extent/, ["shared-memory-tiling/split-i-by-tile-x"]);
  });

  it("a task-1 split written for the graded size, [2048 / tileX, tileX], scores full marks without a GPU, on the grader's own settings", async () => {
    // Regression: the numerics replayed the trace at 256³, where these literal factors give
    // another kernel (81920 B of shared memory): it failed and zeroed all of part 1. The
    // sampled blocks of the 2048³ kernel decide now; the 256³ replay is a pre-check noted only.
    const report = await gradeSubmission({ submissionDir: await submissionOf("literal-tile-split"), binding, manifest });

    expect(report.score).toBe(80);
    expect(report.maxScore).toBe(80);
    expectPoints(report, {});
    for (const id of PART1) expectAllPassed(report, id);
    expectNumericsPass(report, manifest.numerics.rounds);
    expect(report.numerics.manual?.sample?.blocks).toBe(23);
    expect(report.notes).toContainEqual(
      expect.stringMatching(
        /^Numerics of the manual schedule: the quick pre-check at 256×256×256 \(the trace replayed at a reduced size\) did not pass, which does not count: the kernels would execute about .* \(a split by a factor much larger than its loop leaves most iterations predicated off\?\)/,
      ),
    );
    expect(taskOf(report, "shared-memory-tiling").notes).toEqual([]);
  });

  it("a missing computeAt fails the A and B shared-stage checks, telling to place them with computeAt; the rest of task 1 passes", async () => {
    const report = await gradeCase("missing-compute-at");

    expect(report.score).toBe(76);
    expectPoints(report, { "shared-memory-tiling": 16 });
    expect(failedChecks(report, "shared-memory-tiling")).toEqual(["a-shared-stage", "b-shared-stage"]);
    for (const b of ["A", "B"]) {
      expect(checkOf(report, "shared-memory-tiling", `${b.toLowerCase()}-shared-stage`).feedback).toBe(
        `the shared stage "${b}_shared" is computed at the root, outside every loop of "gemm": move it under the k-chunk loop (k_0, extent 32) with computeAt`,
      );
    }
    for (const id of PART1.slice(1)) expectAllPassed(report, id);
    expectNoStandIns(report);
    expectNumericsExcused(report, /runs on the host, outside every kernel/, ["shared-memory-tiling/a-shared-stage", "shared-memory-tiling/b-shared-stage"]);
  });

  it("shared copies that are not fetched cooperatively score 0 for task 3; the numerics judge the student's schedule (racing copies), charged once", async () => {
    const report = await gradeCase("no-cooperative-fetch");

    expect(report.score).toBe(60);
    expectPoints(report, { "cooperative-fetching": 0 });
    expect(taskOf(report, "cooperative-fetching").error).toBeUndefined();
    expect(checkOf(report, "cooperative-fetching", "a-cooperative-fetch").feedback).toBe('no loop of the copy "A_shared" is bound to threadIdx.x');
    expect(checkOf(report, "cooperative-fetching", "b-cooperative-fetch").feedback).toBe('no loop of the copy "B_shared" is bound to threadIdx.x');
    for (const id of PART1.filter((t) => t !== "cooperative-fetching")) expectAllPassed(report, id);
    expectNoStandIns(report);
    expectNumericsExcused(report, /data race/, ["cooperative-fetching/a-cooperative-fetch", "cooperative-fetching/b-cooperative-fetch"]);
  });

  it("a passing task 1 shaped unlike the solution's, then a missing task 2: tasks 3–5 are graded on the solution's tasks 1–2", async () => {
    // Regression: the solution's registerTiling applied to this task 1 (an extra unit k loop)
    // binds a k loop to threadIdx.y without throwing; tasks 4–5 were graded on that and the
    // manual schedule never wrote D, so the whole of part 1 scored 0.
    const report = await gradeCase("unit-k-loop-then-todo");

    expect(report.score).toBe(60);
    expectPoints(report, { "register-tiling": 0 });
    expect(taskOf(report, "register-tiling").error).toMatch(/^registerTiling is not implemented yet/);
    for (const id of PART1.filter((t) => t !== "register-tiling")) expectAllPassed(report, id);
    for (const id of PART1.slice(2)) {
      expect(taskOf(report, id).notes).toEqual([
        "graded on top of the solution's version of register-tiling (yours left no schedule: it did not complete or could not be replayed), and of shared-memory-tiling (your version completed, but the solution's next task does not fit it)",
      ]);
    }
    expect(report.notes).toContain("The manual schedule was checked with the solution's version of: shared-memory-tiling, register-tiling.");
    expectNumericsPass(report);
  });
});

describe("hostile submissions", () => {
  it("an import of the instructor solution is refused while bundling: every part-1 task fails, nothing ran", async () => {
    const dir = await submissionOf("imports-solution");
    // The import reaches the real solution from the submission folder, through a path out of it.
    const spec = solutionImport(dir);
    expect(existsSync(join(dir, spec.replace(/\.js$/, ".ts")))).toBe(true);
    const line = lineOf(dir, "import * as reference from");
    const report = await grade(dir);

    expect(report.score).toBe(0);
    expectPoints(report, { "shared-memory-tiling": 0, "register-tiling": 0, "cooperative-fetching": 0, "write-cache": 0, "epilogue-fusion": 0 });
    for (const id of PART1) {
      expect(taskOf(report, id).error).toMatch(
        new RegExp(
          `^gemm_relu_add\\.ts could not be compiled:\\n {2}gemm_relu_add\\.ts:${line}:28: imports "${literal(spec)}", which is outside the submission\\n`,
        ),
      );
    }
    expect(report.scripts.size).toBe(0);
    expect(report.numerics.manual).toBeUndefined();
    expect(studentText(report)).not.toContain("INSTRUCTOR SOLUTION");
    expectTunedSolution(report);
  });

  it("a task writing results.json (fs through require, process.binding) fails with the sandbox's message; the grader computes the score", async () => {
    const dir = await submissionOf("writes-results");
    const results = join(dir, "results.json");
    expect(existsSync(results)).toBe(false);
    const report = await grade(dir);

    expect(existsSync(results)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(["gemm_relu_add.ts", "trace_submission.ts"]);
    expect(report.score).toBe(60);
    expect(report.maxScore).toBe(80);
    expectPoints(report, { "write-cache": 0, "epilogue-fusion": 0 });
    expect(taskOf(report, "write-cache").error).toMatch(
      new RegExp(
        `^writeCache threw Error: a submission may not load "node:fs": the grading sandbox has no modules but @tessera/ir, @tessera/schedule and the submission's own files\\n +at writeCache \\(gemm_relu_add\\.ts:${lineOf(dir, 'require(["node", "fs"]')}:\\d+\\)`,
      ),
    );
    // Task 5 ran on the solution's task 4 (a stand-in): the isolate has no process; the fixed message is shown, the stack is not.
    expect(taskOf(report, "epilogue-fusion").error).toBe(
      "epilogueFusion threw ReferenceError: process is not defined (the stack trace is withheld because the task ran on the reference schedule (the solution's version of write-cache stood in))",
    );
    for (const id of PART1.slice(0, 3)) expectAllPassed(report, id);
    expect(report.notes).toContain("The manual schedule was checked with the solution's version of: write-cache, epilogue-fusion.");
    expectNumericsPass(report);
  });

  it("a task running on the solution's stand-in cannot read the solution out: its thrown and printed IR is withheld, and the report says why", async () => {
    // Regression: after a stand-in, task 3 threw `new Error(sch.script())` and results.json showed the solution's IR.
    const report = await gradeCase("exfiltrates-solution");

    expect(report.score).toBe(40);
    expectPoints(report, { "register-tiling": 0, "cooperative-fetching": 0 });
    expect(taskOf(report, "register-tiling").error).toBe(
      'registerTiling is not implemented yet (it still throws "TODO(task 2): registerTiling is not implemented yet")',
    );
    expect(taskOf(report, "cooperative-fetching").error).toBe(
      "cooperativeFetching did not complete (the message is withheld because the task ran on the reference schedule (the solution's version of register-tiling stood in): what your code throws or prints there could reveal the solution)",
    );
    expect(report.notes).toContain(
      "What your code printed while it ran on the reference schedule (the solution's version of register-tiling stood in) is withheld, so that no part of the solution can reach the report.",
    );
    // Nothing of the solution's IR anywhere a student reads: feedback, printed output, --show, results.json.
    const leaks = /prim_func|A_shared_local|T\.thread_binding/;
    expect(studentText(report)).not.toMatch(leaks);
    expect(report.studentOutput.map((o) => o.stdout + o.stderr).join("\n")).not.toMatch(leaks);
    expect([...report.scripts.keys()]).toEqual(["shared-memory-tiling"]);
    expect(formatTerminalReport(report)).not.toMatch(leaks);
    expect(JSON.stringify(toGradescope(report))).not.toMatch(leaks);
    expectNumericsPass(report);
  });

  it("printed fake results (JSON, 'Score: 100/100') around the starter change nothing: 0 points", async () => {
    const report = await gradeCase("fake-output");

    expect(report.score).toBe(0);
    expect(report.maxScore).toBe(80);
    expectPoints(report, { "shared-memory-tiling": 0, "register-tiling": 0, "cooperative-fetching": 0, "write-cache": 0, "epilogue-fusion": 0 });
    PART1.forEach((id, n) =>
      expect(taskOf(report, id).error).toMatch(new RegExp(`^${FUNCTIONS[id]} is not implemented yet \\(it still throws "TODO\\(task ${n + 1}\\)`)),
    );
    expect(taskOf(report, "auto-tuning").error).toMatch(/^applyTrace does not change the schedule/);
    expect(studentText(report)).not.toMatch(/100\/100|"score"|max_score/);
    // The prints are shown to the student locally, labelled as theirs, and kept out of Gradescope's output.
    expect(report.studentOutput.some((o) => o.stdout.includes("Score: 100/100"))).toBe(true);
    expect(formatTerminalReport(report)).toMatch(/── output of your code \(gemm_relu_add\.ts\) ──\n[\s\S]*│ Score: 100\/100/);
    expect(toGradescope(report).output).not.toMatch(/100\/100/);
  });

  it("process.exit(0) in a task fails that task (task 1): the sandbox has no process; tasks 2–5 are still graded", async () => {
    const dir = await submissionOf("process-exit");
    const report = await grade(dir);

    expect(report.score).toBe(60);
    expectPoints(report, { "shared-memory-tiling": 0 });
    expect(taskOf(report, "shared-memory-tiling").error).toMatch(
      new RegExp(
        `^sharedMemoryTiling threw ReferenceError: process is not defined\\n +at sharedMemoryTiling \\(gemm_relu_add\\.ts:${lineOf(dir, "process.exit(0)")}:\\d+\\)`,
      ),
    );
    for (const id of PART1.slice(1)) expectAllPassed(report, id);
    expectGradedOnSolution(report, "shared-memory-tiling");
    expectNumericsPass(report);
  });

  it("patching Schedule.prototype.bind (to record nothing while get() claims the binding) fails: the package is frozen; the solution stands in for that task", async () => {
    const before = scheduleMembers();
    const dir = await submissionOf("patched-schedule");
    const report = await grade(dir);

    // The isolate's packages are frozen (and the bundle is strict): the assignment throws in task 1.
    expect(report.score).toBe(60);
    expectPoints(report, { "shared-memory-tiling": 0 });
    expect(taskOf(report, "shared-memory-tiling").error).toMatch(
      new RegExp(
        `^sharedMemoryTiling threw TypeError: Cannot assign to read only property 'bind' of object '#<_?Schedule>'\\n +at sharedMemoryTiling \\(gemm_relu_add\\.ts:${lineOf(dir, "Schedule.prototype.bind =")}:\\d+\\)`,
      ),
    );
    for (const id of PART1.slice(1)) expectAllPassed(report, id);
    expectGradedOnSolution(report, "shared-memory-tiling");
    expectNumericsPass(report);
    expectScheduleUntouched(before);
  });

  it("replacing the Schedule trace getter by a forged 'perfect' trace fails task 1 (the package is frozen); tasks 2–5 are graded on the stand-in", async () => {
    const before = scheduleMembers();
    const report = await gradeCase("forged-trace");

    expect(report.score).toBe(60);
    expectPoints(report, { "shared-memory-tiling": 0 });
    expect(taskOf(report, "shared-memory-tiling").error).toMatch(
      /^sharedMemoryTiling threw TypeError: Cannot redefine property: trace\n +at sharedMemoryTiling \(gemm_relu_add\.ts:\d+:\d+\)/,
    );
    expect(report.scripts.has("shared-memory-tiling")).toBe(false);
    for (const id of PART1.slice(1)) expectAllPassed(report, id);
    expectGradedOnSolution(report, "shared-memory-tiling");
    expectNumericsPass(report);
    expectScheduleUntouched(before);
  });
});

describe("part 2: a tuned trace that cannot run or computes wrong numbers scores 0 with the reason", () => {
  /**
   * Part 1 is the solution's (80 pt); part 2 scores 0, its numerics check failed with `feedback`
   * (without a GPU the 20 pt of timing are left out of every submission's total, and say why they
   * would not be earned).
   */
  function expectPart2Zero(report: GradeReport, feedback: RegExp): void {
    expect(report.score).toBe(80);
    expect(report.maxScore).toBe(80);
    expectPoints(report, {}, 0);
    for (const id of PART1) expectAllPassed(report, id);
    const tuned = taskOf(report, "auto-tuning");
    expect(tuned.error).toBeUndefined();
    expect(checkOf(report, "auto-tuning", "trace-replays").status).toBe("passed");
    const correct = checkOf(report, "auto-tuning", "tuned-schedule-correct");
    expect(correct.status).toBe("failed");
    expect(correct.feedback).toMatch(feedback);
    expect(checkOf(report, "auto-tuning", "tuned-time")).toMatchObject({
      status: "skipped",
      points: 0,
      maxPoints: 0,
      feedback: expect.stringMatching(/^needs a GPU: .*the tuned schedule must first compute correct results$/),
    });
    expect(tuned.notes.some((n) => n.startsWith("part 2 scores 0"))).toBe(true);
    expect(report.numerics.tuned?.passed).toBe(false);
  }

  it("64×64 = 4096 threads per block exceed the GPU's 1024", async () => {
    const report = await gradeCase("too-many-threads");
    expectPart2Zero(
      report,
      /^the schedule cannot be built for the GPU at 2048×2048×2048: .*uses 4096 threads per block \(64×64×1\); nvidia\/tesla-t4 allows 1024/,
    );
  });

  it("a k loop bound to threadIdx.z races and writes partial sums", async () => {
    const report = await gradeCase("racy-trace");
    expectPart2Zero(report, /^the kernel has \d+ data race\(s\) on shared memory/);
    expect(report.numerics.tuned?.rounds[0]?.mismatches).toBeGreaterThan(0);
  });

  it("a trace that binds nothing does not schedule for the GPU", async () => {
    const report = await gradeCase("unbound-trace");
    expectPart2Zero(
      report,
      /^the schedule cannot be built for the GPU at 2048×2048×2048: .*no loop is bound to a GPU thread: bind the outer loops to blockIdx\/threadIdx with sch\.bind/,
    );
  });
});

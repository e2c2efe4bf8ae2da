/**
 * The schedule worker's logic, run in Node: the student's module with its steps and lines, the
 * analyses of what it scheduled, and errors at the line of the student's code.
 */
import { readFileSync } from "node:fs";
import { manualSchedule as corpusManual } from "@tessera/corpus";
import { structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { runStudent } from "../src/worker/run-student.js";
import { explore } from "../src/worker/explore.js";
import { WORKLOADS } from "../src/workloads.js";

const example = (name: string) => readFileSync(new URL(`../src/examples/${name}.ts`, import.meta.url), "utf8");
const gemm = WORKLOADS["gemm-relu-add"];

describe("runStudent", () => {
  it("runs the course's manual schedule to the corpus's at 256³, one step per primitive with its line", () => {
    const code = readFileSync(new URL("../../../assignments/gemm-relu-add/solution/gemm_relu_add.ts", import.meta.url), "utf8");
    const run = runStudent(code, gemm, 256);
    expect(run.error).toBeUndefined();
    expect(run.scheduled !== undefined && structuralEqual(run.scheduled.func, corpusManual(256).func)).toBe(true);
    const lines = code.split("\n");
    expect(run.steps[0]?.primitive).toBe("initial");
    const primitives = run.steps.slice(1);
    expect(primitives.map((s) => s.primitive).slice(0, 4)).toEqual(["split", "split", "split", "reorder"]);
    for (const step of primitives) expect(lines[(step.line ?? 0) - 1]).toContain(step.primitive === "cacheRead" ? "cacheRead" : `.${step.primitive}(`);
    // Each step changed the IR.
    for (let i = 1; i < run.steps.length; i++) expect(run.steps[i]?.script).not.toBe(run.steps[i - 1]?.script);
  });

  it("reports a ScheduleError at the line that called the primitive, with the steps before it", () => {
    const code =
      'import { Schedule } from "@tessera/schedule";\nexport function schedule(sch: Schedule): void {\n  const [i] = sch.getLoops(sch.getBlock("C"));\n  sch.split(i!, [null, 128]);\n  sch.bind(sch.getLoops(sch.getBlock("C"))[0]!, "threadIdx.q");\n}\n';
    const run = runStudent(code, WORKLOADS["vector-add"], 256);
    expect(run.error).toMatchObject({ line: 5 });
    expect(run.steps.map((s) => s.primitive)).toEqual(["initial", "split"]);
  });

  it("reports the starter file's first unfinished task at its line", () => {
    const starter = readFileSync(new URL("../../../assignments/gemm-relu-add/gemm_relu_add.ts", import.meta.url), "utf8");
    const run = runStudent(starter, gemm, 256);
    const line = starter.split("\n").findIndex((l) => l.includes('throw new Error("TODO(task 1)')) + 1;
    expect(run.error).toEqual({ name: "Error", message: "TODO(task 1): sharedMemoryTiling is not implemented yet", line });
  });

  it("refuses imports other than @tessera/ir and @tessera/schedule, and reports syntax errors at their line", () => {
    expect(runStudent('import { readFileSync } from "node:fs";\nexport function schedule() {\n  readFileSync("x");\n}\n', gemm, 256).error).toMatchObject({
      name: "ImportError",
      message: 'imports "node:fs"; a schedule may only import @tessera/ir and @tessera/schedule',
      line: 1,
    });
    expect(runStudent("export function schedule(sch) {\n  sch.split(;\n}\n", gemm, 256).error).toMatchObject({ name: "TranspileError", line: 2 });
    expect(runStudent("export const x = 1;\n", gemm, 256).error?.message).toBe("the module exports neither manualSchedule(size) nor schedule(sch)");
  });
});

describe("explore", () => {
  it("lowers, simulates and tiles d2l's vector add", () => {
    const result = explore({ code: example("vector-add"), workload: "vector-add" });
    expect(result.error).toBeUndefined();
    expect(result.verdict).toEqual({ ok: true, value: { passed: true, mismatchCount: 0, raceCount: 0, races: [], raceBuffers: [], fault: undefined } });
    expect(result.cuda.ok && result.cuda.value).toContain("__global__");
    if (!result.tiling.ok) throw new Error(result.tiling.reason);
    const { blockOf, threadOf, grid, block } = result.tiling.value;
    expect([grid, block]).toEqual([
      [32, 1, 1],
      [128, 1, 1],
    ]);
    expect([blockOf[0], blockOf[127], blockOf[128], blockOf[4095]]).toEqual([0, 0, 1, 31]);
    expect([threadOf[0], threadOf[127], threadOf[128], threadOf[4095]]).toEqual([0, 127, 0, 127]);
    expect(result.loopTree).toMatchObject({
      ok: true,
      value: { kind: "block", name: "root", children: [{ kind: "loop", binding: "blockIdx.x", extent: "32" }] },
    });
  });

  it("says why an unscheduled workload has no CUDA", () => {
    const result = explore({ code: "export function schedule() {}\n", workload: "vector-add" });
    expect(result.cuda.ok).toBe(false);
    expect(result.verdict).toMatchObject({ ok: false, reason: expect.stringContaining("cannot lower for nvidia/tesla-t4") });
  });
});

import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { printTVMScript } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import * as starterTuning from "../auto_tuning.js";
import * as starter from "../gemm_relu_add.js";
import * as solutionTuning from "../solution/auto_tuning.js";
import * as solution from "../solution/gemm_relu_add.js";
import * as solutionTrace from "../solution/trace_submission.js";
import * as starterTrace from "../trace_submission.js";
import { STUDENT_FILES, assignmentRoot, isNotImplementedError } from "../src/index.js";
import { maxExcessError } from "./numerics.js";

// Compile-time: the starter and the solution export the same signatures (checked by tsc).
const sameSignatures: [
  typeof solution.sharedMemoryTiling,
  typeof solution.registerTiling,
  typeof solution.cooperativeFetching,
  typeof solution.writeCache,
  typeof solution.epilogueFusion,
  typeof solution.manualSchedule,
  typeof solution.naiveSchedule,
  typeof solution.workload,
  typeof solutionTuning.autoTuningSchedule,
  typeof solutionTrace.applyTrace,
] = [
  starter.sharedMemoryTiling,
  starter.registerTiling,
  starter.cooperativeFetching,
  starter.writeCache,
  starter.epilogueFusion,
  starter.manualSchedule,
  starter.naiveSchedule,
  starter.workload,
  starterTuning.autoTuningSchedule,
  starterTrace.applyTrace,
];

const modules: Record<string, Record<string, unknown>> = {
  "gemm_relu_add.ts": starter,
  "auto_tuning.ts": starterTuning,
  "trace_submission.ts": starterTrace,
};

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to throw");
}

describe("starter files", () => {
  it("export every function the metadata lists, in the starter and in the solution", () => {
    expect(sameSignatures).toHaveLength(10);
    const solutions: Record<string, Record<string, unknown>> = {
      "gemm_relu_add.ts": solution,
      "auto_tuning.ts": solutionTuning,
      "trace_submission.ts": solutionTrace,
    };
    for (const file of STUDENT_FILES) {
      for (const fn of file.exports) {
        expect(typeof modules[file.file]?.[fn.name], `${file.file} ${fn.name}`).toBe("function");
        expect(typeof solutions[file.file]?.[fn.name], `solution/${file.file} ${fn.name}`).toBe("function");
      }
    }
  });

  it("every unfinished task throws a TODO error naming the task, and leaves the schedule unchanged", () => {
    const sch = new Schedule(starter.workload(128));
    const before = sch.script();
    const gemm = sch.getBlock("gemm");
    const cases: [string, () => unknown][] = [
      ["task 1", () => starter.sharedMemoryTiling(sch, 64, 64, 64)],
      ["task 2", () => starter.registerTiling(sch, 4, 4, 1)],
      ["task 3", () => starter.cooperativeFetching(sch, gemm, gemm, 16, 16)],
      ["task 4", () => starter.writeCache(sch)],
      ["task 5", () => starter.epilogueFusion(sch)],
      ["part 2", () => starterTuning.autoTuningSchedule(sch)],
    ];
    for (const [task, call] of cases) {
      const err = thrown(call);
      expect(isNotImplementedError(err), task).toBe(true);
      expect((err as Error).message).toMatch(new RegExp(`^TODO\\(${task}\\)`));
    }
    expect(sch.script()).toBe(before);
  });

  it("manualSchedule stops at task 1 with its TODO", () => {
    expect((thrown(() => starter.manualSchedule(128)) as Error).message).toMatch(/^TODO\(task 1\)/);
  });

  it("the given naive schedule and workload work; the empty applyTrace leaves the function unscheduled", () => {
    const naive = new Schedule(starter.workload(128));
    starter.naiveSchedule(naive);
    expect(maxExcessError(naive.func, starter.workload(128), 5, 1e-4)).toBeLessThanOrEqual(1e-4);
    const traced = new Schedule(starter.workload(128));
    starterTrace.applyTrace(traced);
    expect(printTVMScript(traced.func)).toBe(printTVMScript(new Schedule(starter.workload(128)).func));
    expect(starter.MANUAL_TILE_SIZES).toEqual(solution.MANUAL_TILE_SIZES);
  });

  it("type-check (with the solution, scripts and tests) under the strict settings", () => {
    // Runs tsgo (TypeScript's native port, the checker of `pnpm typecheck`: 4 CPU s here where tsc
    // takes 16) on the assignment's tsconfig; a failure prints the compiler's diagnostics.
    const tsgo = join(dirname(createRequire(import.meta.url).resolve("@typescript/native-preview/package.json")), "bin", "tsgo");
    let diagnostics = "";
    try {
      execFileSync(process.execPath, [tsgo, "--noEmit", "-p", "tsconfig.json"], { cwd: assignmentRoot(), stdio: "pipe" });
    } catch (err) {
      diagnostics = String((err as { stdout?: unknown }).stdout ?? err);
    }
    expect(diagnostics).toBe("");
  }, 120_000);
});

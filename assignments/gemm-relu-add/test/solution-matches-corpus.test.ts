/**
 * The compiler's corpus has its own naive and manual schedules and search space of gemm+ReLU+add (packages never
 * import course content); the instructor solution must give the very same programs, so that the
 * compiler's tests and benchmarks measure what the course grades.
 */
import { courseSearchSpace, manualSchedule as corpusManual, naiveSchedule as corpusNaive } from "@tessera/corpus";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { autoTuningSchedule } from "../solution/auto_tuning.js";
import { manualSchedule, naiveSchedule, workload } from "../solution/gemm_relu_add.js";

describe("the instructor solution and the compiler's corpus", () => {
  it.each([256, 2048])("schedule %i³ the same way (manual and naive)", (n) => {
    expect(manualSchedule(n).script()).toBe(corpusManual(n).script());
    const naive = new Schedule(workload(n));
    naiveSchedule(naive);
    expect(naive.script()).toBe(corpusNaive(n).script());
  });

  it.each([
    [256, 1],
    [256, 7],
    [2048, 3],
  ])("give the same search space at %i³ (the same trace and program for seed %i)", (n, seed) => {
    const solution = new Schedule(workload(n), { seed });
    autoTuningSchedule(solution);
    const corpus = new Schedule(workload(n), { seed });
    courseSearchSpace(corpus);
    expect(corpus.trace.show()).toBe(solution.trace.show());
    expect(corpus.script()).toBe(solution.script());
  });
});

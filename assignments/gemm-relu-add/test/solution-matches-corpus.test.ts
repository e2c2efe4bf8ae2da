/**
 * The compiler's corpus has its own naive and manual schedules of gemm+ReLU+add (packages never
 * import course content); the instructor solution must give the very same programs, so that the
 * compiler's tests and benchmarks measure what the course grades.
 */
import { manualSchedule as corpusManual, naiveSchedule as corpusNaive } from "@tessera/corpus";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { manualSchedule, naiveSchedule, workload } from "../solution/gemm_relu_add.js";

describe("the instructor solution and the compiler's corpus", () => {
  it.each([256, 2048])("schedule %i³ the same way (manual and naive)", (n) => {
    expect(manualSchedule(n).script()).toBe(corpusManual(n).script());
    const naive = new Schedule(workload(n));
    naiveSchedule(naive);
    expect(naive.script()).toBe(corpusNaive(n).script());
  });
});

/**
 * The GPU branch of grading without a GPU: a fake GpuBackend (numerics from the simulator, times
 * from a table) checks that full grading times the reference schedules, scales the tuned
 * thresholds by the reference manual time on a GPU without its own table, and reports it, with
 * each timing's mean, median, min and spread, noisy ones flagged.
 */
import { Schedule } from "@tessera/schedule";
import { beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { GpuFaultError } from "../src/gpu/worker/gpu-worker.js";
import { gradeSubmission } from "../src/grade/grade-submission.js";
import type { GpuBackend, TimingOutcome } from "../src/grade/numerics-types.js";
import { simulatorNumerics } from "../src/grade/simulator-numerics.js";
import { type Manifest, loadManifest } from "../src/manifest/index.js";
import { formatTerminalReport } from "../src/report/terminal.js";
import { toGradescope } from "../src/report/to-gradescope.js";

const binding = assignmentBinding("gemm-relu-add");
let manifest: Manifest;

beforeAll(() => {
  manifest = loadManifest(binding.manifestPath);
});

type Role = "manual" | "naive" | "tuned";
/** A timing's spread: its std and how far its min lies below the median, as shares of the mean. */
type Spread = { readonly std: number; readonly minGap: number };
/** The spread of the H200 run in docs/benchmarks/autograder-gpu.json: 0.26 µs on 4.9 ms, min 0.01% below the median. */
const QUIET: Spread = { std: 0.26e-3 / 4.934, minGap: 1e-4 };

/** Times by schedule: the naive schedule, the tuned one (recognised by its sampling), else the manual one. */
function fakeGpu(
  name: string,
  key: string | undefined,
  ms: Record<Role, number>,
  spread: Partial<Record<Role, Spread>> = {},
): GpuBackend & { timed: string[] } {
  const timed: string[] = [];
  return {
    name,
    key,
    timed,
    // One round on 4 sampled blocks (1e8 statements): the GPU path, not the simulator's coverage, is under test.
    numerics: async (req) => ({ ...simulatorNumerics(req, binding, { workBudget: 1e8 }), backend: "gpu", device: name }),
    time: async (sch: Schedule): Promise<TimingOutcome> => {
      const kinds = sch.trace.instructions.map((i) => i.kind.name);
      const which: Role = kinds.includes("SamplePerfectTile") ? "tuned" : kinds.includes("CacheRead") ? "manual" : "naive";
      timed.push(which);
      const mean = ms[which];
      const { std, minGap } = spread[which] ?? QUIET;
      return { meanMs: mean, medianMs: mean, minMs: mean * (1 - minGap), maxMs: mean * (1 + 3 * std), stdMs: mean * std, repeats: 10, number: 3, device: name };
    },
    dispose: () => {},
  };
}

function checkOf(report: Awaited<ReturnType<typeof gradeSubmission>>, checkId: string) {
  const check = report.tasks.flatMap((t) => t.checks).find((c) => c.check.id === checkId);
  if (check === undefined) throw new Error(`no check ${checkId}`);
  return check;
}

describe("grading with a GPU (fake backend)", () => {
  it("a GPU fault while the course's own schedule is timed is named as the course's, not the student's", async () => {
    const gpu = fakeGpu("NVIDIA H200", "h200", { manual: 8, naive: 60, tuned: 6.6 });
    const time = gpu.time;
    gpu.time = async (sch, timing, assignment) => {
      const outcome = await time(sch, timing, assignment);
      if (gpu.timed.at(-1) === "naive")
        throw new GpuFaultError({ kind: "cuda-error", code: "CUDA_ERROR_ILLEGAL_ADDRESS", call: "cuLaunchKernel", stage: "timing the kernels", message: "" });
      return outcome;
    };
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(report.timings["reference-naive"]).toEqual({
      error: "the course's naive schedule accessed memory out of bounds on the GPU while it was timed (CUDA_ERROR_ILLEGAL_ADDRESS)",
    });
    expect(formatTerminalReport(report)).not.toMatch(/naive schedule \(course\).*your kernel/);
    expect(report.score).toBe(100);
  });

  it("on a GPU without its own table, scales the T4 thresholds by the reference manual time", async () => {
    const gpu = fakeGpu("NVIDIA H200", "h200", { manual: 8, naive: 60, tuned: 6.6 });
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(gpu.timed.sort()).toEqual(["manual", "manual", "naive", "tuned"]);
    expect(report.tunedScoring?.scale).toBeCloseTo(8 / 23.88, 12);
    expect(report.score).toBe(100);
    expect(report.maxScore).toBe(100);
    const text = formatTerminalReport(report);
    // The spread is printed where it shows (µs and % of the mean), with mean, median and min; nothing is noisy.
    expect(text).toMatch(/reference manual schedule \(solution\)\s+8\.000 ms mean, 8\.000 median, 7\.999 min; std 0\.42 µs \(0\.0053% of the mean\)\n/);
    expect(text).toMatch(/naive schedule \(course\)\s+60\.000 ms mean, 60\.000 median, 59\.994 min; std 3\.2 µs \(0\.0053% of the mean\)\n/);
    expect(text).not.toContain("NOISY");
    expect(text).not.toContain("± 0.000");
    const results = toGradescope(report);
    const tuned = results.tests.find((t) => t.name === "Part 2. Auto tuning")!;
    expect(tuned).toMatchObject({ score: 20, max_score: 20 });
    expect(tuned.output).toMatch(/6\.600 ms on NVIDIA H200: 20 of 20 pt .*the t4 limits were scaled by 0\.335/);
  });

  it("on a T4, scores with the T4 table directly", async () => {
    const gpu = fakeGpu("Tesla T4", "t4", { manual: 23.88, naive: 280, tuned: 25 });
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(report.tunedScoring).toMatchObject({ scale: 1, points: 15 });
    expect(report.score).toBe(95);
    expect(report.notes.some((n) => n.startsWith("No GPU"))).toBe(false);
  });

  it("flags noisy timings in the report and in the tuned-time feedback: std over 2% of the mean, min far below the median", async () => {
    const gpu = fakeGpu(
      "Tesla T4",
      "t4",
      { manual: 23.88, naive: 280, tuned: 25 },
      { tuned: { std: 0.031, minGap: 0.002 }, naive: { std: 0.001, minGap: 0.075 } },
    );
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    const text = formatTerminalReport(report);
    expect(text).toMatch(
      /your tuned schedule \(trace_submission\.ts\)\s+25\.000 ms mean, 25\.000 median, 24\.950 min; std 775 µs \(3\.1% of the mean\) — NOISY: std 3\.1% of the mean \(over 2\.0%\)\n/,
    );
    expect(text).toMatch(
      /naive schedule \(course\)\s+280\.000 ms mean, 280\.000 median, 259\.000 min; std 280 µs \(0\.10% of the mean\) — NOISY: min 7\.5% below the median \(over 5\.0%\)\n/,
    );
    expect(text).toMatch(/reference manual schedule \(solution\)\s+23\.880 ms mean, [^\n]*% of the mean\)\n/);
    expect(text).toContain("NOISY: std above 2% of the mean, or min more than 5% below the median");
    expect(checkOf(report, "tuned-time").feedback).toMatch(
      /^25\.000 ms on Tesla T4 \(a noisy measurement: std 3\.1% of the mean \(over 2\.0%\); grade again if it matters\): 15 of 20 pt/,
    );
  });

  it("a tuned schedule that is too slow for every row scores 0 for time but keeps the part's other marks", async () => {
    const gpu = fakeGpu("Tesla T4", "t4", { manual: 23.88, naive: 280, tuned: 200 });
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(report.score).toBe(80);
    expect(report.maxScore).toBe(100);
  });
});

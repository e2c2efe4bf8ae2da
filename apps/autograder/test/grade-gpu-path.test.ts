/**
 * The GPU branch of grading without a GPU: a fake GpuBackend (numerics from the simulator, times
 * from a table) checks that full grading times the reference schedules, scales the tuned
 * thresholds by the reference manual time on a GPU without its own table, and reports it.
 */
import { Schedule } from "@tessera/schedule";
import { beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
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

/** Times by schedule: the naive schedule, the tuned one (recognised by its sampling), else the manual one. */
function fakeGpu(name: string, key: string | undefined, ms: { manual: number; naive: number; tuned: number }): GpuBackend & { timed: string[] } {
  const timed: string[] = [];
  return {
    name,
    key,
    timed,
    numerics: async (req) => ({ ...simulatorNumerics(req, binding), backend: "gpu", device: name }),
    time: async (sch: Schedule): Promise<TimingOutcome> => {
      const kinds = sch.trace.instructions.map((i) => i.kind.name);
      const which = kinds.includes("SamplePerfectTile") ? "tuned" : kinds.includes("CacheRead") ? "manual" : "naive";
      timed.push(which);
      return { meanMs: ms[which], stdMs: 0.01, repeats: 10, number: 3, device: name };
    },
    dispose: () => {},
  };
}

describe("grading with a GPU (fake backend)", () => {
  it("on a GPU without its own table, scales the T4 thresholds by the reference manual time", async () => {
    const gpu = fakeGpu("NVIDIA H200", "h200", { manual: 8, naive: 60, tuned: 6.6 });
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(gpu.timed.sort()).toEqual(["manual", "manual", "naive", "tuned"]);
    expect(report.tunedScoring?.scale).toBeCloseTo(8 / 23.88, 12);
    expect(report.score).toBe(100);
    expect(report.maxScore).toBe(100);
    const text = formatTerminalReport(report);
    expect(text).toMatch(/reference manual schedule \(solution\)\s+8\.000 ms/);
    expect(text).toMatch(/naive schedule \(course\)\s+60\.000 ms/);
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

  it("a tuned schedule that is too slow for every row scores 0 for time but keeps the part's other marks", async () => {
    const gpu = fakeGpu("Tesla T4", "t4", { manual: 23.88, naive: 280, tuned: 200 });
    const report = await gradeSubmission({ submissionDir: `${binding.root}/solution`, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(report.score).toBe(80);
    expect(report.maxScore).toBe(100);
  });
});

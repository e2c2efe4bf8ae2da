/**
 * The tuner's hand-in step on a GPU, with a fake GPU backend whose numerics and timings are set per
 * check (the search itself runs with meta-schedule's SimulatedRunner here: no GPU in CI): the best
 * record whose numerics pass is chosen and timed with the grading settings; one that computes wrong
 * results is skipped for the next; when every checked one is wrong, nothing is handed in.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatedRunner } from "@tessera/meta-schedule";
import { cuda } from "@tessera/runtime";
import { Schedule } from "@tessera/schedule";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import type { GpuBackend, NumericsOutcome, TimingOutcome } from "../src/grade/numerics-types.js";
import { replayTrace } from "../src/grade/replay.js";
import { type Timing, loadManifest } from "../src/manifest/index.js";
import { MAX_NUMERICS_CHECKS, type TuneSearch, formatTuneReport, handInTuned, searchTuneSpace, tuneSearchSpace } from "../src/tune/index.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const SOLUTION = join(binding.root, "solution");
/**
 * No replay worker thread (about 4 CPU s a run, started cold), a population of 16 rather than 64 and
 * no climbs on the cost model (a quarter of such a search's CPU): the hand-in step is under test, not the
 * search's threads or reach.
 */
const SMALL_SEARCH = { searchWorkers: 0, searchConfig: { populationSize: 16, climbStarts: 0 } } as const;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-tune-gpu-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A GPU whose k-th numerics check (0-based) passes when `passes(k)`; it logs every call. */
function fakeGpu(passes: (check: number) => boolean) {
  const log: string[] = [];
  const checkedTraces: string[] = [];
  let checks = 0;
  const gpu: GpuBackend = {
    name: "Fake GPU",
    key: undefined,
    async numerics(req): Promise<NumericsOutcome> {
      const k = checks++;
      log.push(`numerics ${k}`);
      checkedTraces.push(req.schedule.trace.show());
      const passed = passes(k);
      return {
        passed,
        backend: "gpu",
        device: "Fake GPU",
        size: req.settings.sizes.full,
        shape: `${req.settings.sizes.full}×${req.settings.sizes.full}×${req.settings.sizes.full}`,
        rounds: [
          {
            seed: req.seed,
            elements: 16,
            mismatches: passed ? 0 : 12,
            unwritten: 0,
            maxAbsError: 0,
            ...(passed ? {} : { firstMismatch: "D[0, 1] = 7 but the reference is 3" }),
          },
        ],
      };
    },
    async time(schedule: Schedule, timing: Timing): Promise<TimingOutcome> {
      log.push(`time ${timing === manifest.timing ? "grading settings" : JSON.stringify(timing)}`);
      checkedTraces.push(schedule.trace.show());
      return { meanMs: 1.234, medianMs: 1.23, minMs: 1.22, maxMs: 1.25, stdMs: 0.01, repeats: timing.repeat, number: timing.number, device: "Fake GPU" };
    },
    dispose() {},
  };
  return { gpu, log, checkedTraces };
}

/**
 * One search (seed 2, 8 trials, ranked by the simulated runner: no GPU is asked during it), handed
 * in by each test to a GPU whose numerics answer differently: the hand-in step is what they check.
 */
let search: Promise<TuneSearch> | undefined;
function tune(gpu: GpuBackend) {
  search ??= searchTuneSpace({
    submissionDir: SOLUTION,
    binding,
    manifest,
    trials: 8,
    seed: 2,
    gpu: fakeGpu(() => true).gpu,
    runner: new SimulatedRunner(),
    workDir: join(scratch, "work-search"),
    numerics: { rounds: 1 },
    ...SMALL_SEARCH,
  });
  return search.then((done) => handInTuned(done, gpu));
}

describe("tuning with a GPU (fake backend)", () => {
  it("skips the search's best when its numerics fail, hands in the next, timed with the grading settings", async () => {
    const { gpu, log, checkedTraces } = fakeGpu((k) => k > 0);
    const result = await tune(gpu);

    expect(result.measured).toBe(true);
    expect(log).toEqual(["numerics 0", "numerics 1", "time grading settings"]);
    expect(result.checked.map((c) => [c.rank, c.numerics?.passed])).toEqual([
      [1, false],
      [2, true],
    ]);
    const chosen = result.chosen;
    if (chosen === undefined) throw new Error(`no candidate: ${result.noChoiceReason}`);
    expect(chosen.rank).toBe(2);
    expect(chosen.timing?.meanMs).toBe(1.234);
    // What was checked and timed is what is handed in: the grader's replay of the record.
    const replay = replayTrace(chosen.json, new Schedule(binding.workload(manifest.numerics.sizes.full)));
    if (!replay.ok) throw new Error(replay.error);
    expect(replay.schedule.trace.show()).toBe(chosen.text);
    expect(checkedTraces.slice(1)).toEqual([chosen.text, chosen.text]);
    expect(chosen.text).toMatch(/export function applyTrace\(sch: Schedule\): void \{/);

    const report = formatTuneReport(result);
    expect(report).toContain("Search: 8 candidates measured on the Fake GPU");
    expect(report).toMatch(/Search rank 1 skipped: round 1: 12 of 16 outputs wrong; first: D\[0, 1\] = 7 but the reference is 3/);
    expect(report).toContain(`Best candidate: search rank 2 (decisions `);
    expect(report).toContain("1.234 ms mean, 1.230 median, 1.220 min; std 10 µs (0.81% of the mean) on Fake GPU with the grading settings");
    expect(report).toContain("Total trials: 8");
  });

  it("hands in nothing when every checked candidate computes wrong results, and says so", async () => {
    const { gpu, log } = fakeGpu(() => false);
    const result = await tune(gpu);

    expect(result.chosen).toBeUndefined();
    expect(log.filter((l) => l.startsWith("time"))).toEqual([]);
    expect(result.checked).toHaveLength(MAX_NUMERICS_CHECKS);
    expect(result.noChoiceReason).toBe(
      `${MAX_NUMERICS_CHECKS} of the search's best ${MAX_NUMERICS_CHECKS} candidates compute wrong results; so the search space itself is probably wrong`,
    );
    expect(formatTuneReport(result)).toContain("No candidate found: 5 of the search's best 5 candidates compute wrong results");
  });

  // The default runner on a GPU is meta-schedule's LocalRunner; without CUDA (CI) it can measure nothing.
  it.skipIf(cuda.available())("says why when the search could measure nothing (the LocalRunner finds no CUDA device)", async () => {
    const { gpu, log } = fakeGpu(() => true);
    const result = await tuneSearchSpace({
      submissionDir: SOLUTION,
      binding,
      manifest,
      trials: 4,
      seed: 1,
      gpu,
      workDir: join(scratch, "work-no-cuda"),
      numerics: { rounds: 1 },
      ...SMALL_SEARCH,
    });

    expect(log).toEqual([]);
    expect(result.chosen).toBeUndefined();
    expect(result.search.failed).toBe(result.search.trials);
    expect(result.noChoiceReason).toBe("the search measured no candidate successfully");
    const report = formatTuneReport(result);
    expect(report).toMatch(/first failure: LocalRunner: no CUDA device to measure on/);
    expect(report).toContain("No candidate found: the search measured no candidate successfully.");
  });
});

/**
 * How the tuner chooses among valid candidates, with a fake GPU whose times and numerics are set
 * per schedule: the fastest numerically correct candidate wins after re-timing the quickest few
 * with the grading settings; a faster wrong one is skipped; failures are kept apart.
 */
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import type { GpuBackend, NumericsOutcome, TimingOutcome } from "../src/grade/numerics-types.js";
import { type Timing, loadManifest } from "../src/manifest/index.js";
import { type Candidate, FINALISTS, QUICK_TIMING, selectCandidate } from "../src/tune/index.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const GRADING: Timing = loadManifest(binding.manifestPath).timing;

interface Behaviour {
  /** Mean ms with QUICK_TIMING and with the grading settings; a string: gpu.time throws it. */
  readonly quick: number | string;
  readonly graded?: number;
  readonly wrong?: boolean;
}

function candidates(n: number): Candidate[] {
  return Array.from({ length: n }, (_, k) => ({ seed: k + 1, decisions: [[k + 1, 1]], schedule: new Schedule(binding.workload(64)) }));
}

/** A GPU that answers from `behaviour` (by candidate seed) and logs every call. */
function fakeGpu(cands: readonly Candidate[], behaviour: Readonly<Record<number, Behaviour>>) {
  const seedOf = (s: Schedule): number => cands.find((c) => c.schedule === s)!.seed;
  const log: string[] = [];
  const gpu: GpuBackend = {
    name: "Fake GPU",
    key: undefined,
    async time(schedule, timing): Promise<TimingOutcome> {
      const seed = seedOf(schedule);
      const quick = JSON.stringify(timing) === JSON.stringify(QUICK_TIMING);
      expect(quick || timing === GRADING).toBe(true);
      log.push(`time ${seed} ${quick ? "quick" : "graded"}`);
      const b = behaviour[seed]!;
      if (typeof b.quick === "string") throw new Error(b.quick);
      const meanMs = quick ? b.quick : b.graded!;
      return { meanMs, medianMs: meanMs, minMs: meanMs, maxMs: meanMs, stdMs: 0, repeats: timing.repeat, number: timing.number, device: "Fake GPU" };
    },
    async numerics(req): Promise<NumericsOutcome> {
      const seed = seedOf(req.schedule);
      log.push(`numerics ${seed}`);
      return numerics(behaviour[seed]?.wrong !== true);
    },
    dispose() {},
  };
  return { gpu, log };
}

function numerics(passed: boolean): NumericsOutcome {
  return { passed, backend: "gpu", device: "Fake GPU", size: 64, rounds: [{ seed: 1, elements: 4096, mismatches: passed ? 0 : 12, unwritten: 0, maxAbsError: 0 }] };
}

describe("selectCandidate with a GPU", () => {
  it("re-times the quickest few, skips the fastest because its numerics are wrong, and picks the fastest correct one", async () => {
    const cands = candidates(5);
    const { gpu, log } = fakeGpu(cands, {
      1: { quick: 4, graded: 4.2, wrong: true },
      2: { quick: 6, graded: 5.0 },
      3: { quick: 5, graded: 5.5 },
      4: { quick: 9 },
      5: { quick: "the kernel crashed" },
    });
    const s = await selectCandidate({ candidates: cands, gpu, timing: GRADING, checkNumerics: (sch) => gpu.numerics({ schedule: sch, settings: {} as never, seed: 1 }) });

    expect(FINALISTS).toBe(3);
    expect(s.chosen?.candidate.seed).toBe(2);
    expect(s.chosen?.final?.meanMs).toBe(5.0);
    // Best first: finalists by graded time (seed 3 was quicker than 2 at first), the rest by quick time, failures last.
    expect(s.ranked.map((a) => [a.candidate.seed, a.status])).toEqual([
      [1, "wrong-numerics"],
      [2, "chosen"],
      [3, "timed"],
      [4, "timed"],
      [5, "timing-failed"],
    ]);
    expect(s.ranked[4]?.error).toBe("the kernel crashed");
    expect(s.ranked[3]).toMatchObject({ quickMs: 9 });
    expect(s.ranked[3]?.final).toBeUndefined();
    expect(log).toEqual([
      "time 1 quick",
      "time 2 quick",
      "time 3 quick",
      "time 4 quick",
      "time 5 quick",
      "time 1 graded",
      "time 3 graded",
      "time 2 graded",
      "numerics 1",
      "numerics 2",
    ]);
  });

  it("goes past the finalists when they are all wrong, timing the one it takes with the grading settings", async () => {
    const cands = candidates(4);
    const { gpu, log } = fakeGpu(cands, {
      1: { quick: 1, graded: 1, wrong: true },
      2: { quick: 2, graded: 2, wrong: true },
      3: { quick: 3, graded: 3, wrong: true },
      4: { quick: 4, graded: 4.5 },
    });
    const s = await selectCandidate({ candidates: cands, gpu, timing: GRADING, checkNumerics: (sch) => gpu.numerics({ schedule: sch, settings: {} as never, seed: 1 }) });
    expect(s.chosen?.candidate.seed).toBe(4);
    expect(s.chosen?.final?.meanMs).toBe(4.5);
    expect(log.slice(-2)).toEqual(["numerics 4", "time 4 graded"]);
  });

  it("chooses none when every candidate is wrong, and stops checking after a few", async () => {
    const cands = candidates(8);
    const behaviour = Object.fromEntries(cands.map((c) => [c.seed, { quick: c.seed, graded: c.seed, wrong: true }]));
    const { gpu, log } = fakeGpu(cands, behaviour);
    const s = await selectCandidate({ candidates: cands, gpu, timing: GRADING, checkNumerics: (sch) => gpu.numerics({ schedule: sch, settings: {} as never, seed: 1 }) });
    expect(s.chosen).toBeUndefined();
    expect(log.filter((l) => l.startsWith("numerics"))).toHaveLength(5);
    expect(s.noChoiceReason).toMatch(/^5 candidates checked compute wrong results; .* search space itself is probably wrong/);
  });
});

describe("selectCandidate without a GPU", () => {
  it("takes the first correct candidate in sample order and times nothing", async () => {
    const cands = candidates(3);
    const checked: number[] = [];
    const s = await selectCandidate({
      candidates: cands,
      gpu: undefined,
      timing: GRADING,
      checkNumerics: async (sch) => {
        const seed = cands.find((c) => c.schedule === sch)!.seed;
        checked.push(seed);
        return numerics(seed !== 1);
      },
    });
    expect(checked).toEqual([1, 2]);
    expect(s.chosen?.candidate.seed).toBe(2);
    expect(s.chosen?.final).toBeUndefined();
    expect(s.ranked.map((a) => a.status)).toEqual(["wrong-numerics", "chosen", "untimed"]);
  });
});

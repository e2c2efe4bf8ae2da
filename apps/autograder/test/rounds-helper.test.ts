/**
 * The rounds worker: a sampled check with part of its rounds in a worker thread gives the outcome
 * the grader reaches alone (passing, failing in a later round, or with the worker unable to help),
 * and the rounds are split by their blocks.
 */
import * as solution from "@tessera/assignment-gemm-relu-add/solution";
import { lower } from "@tessera/codegen";
import { Schedule } from "@tessera/schedule";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { type SampleResult, type SamplePlan, planSample, runSample } from "../src/grade/sampled-numerics.js";
import { SampledRoundsHelper, splitRounds } from "../src/grade/rounds/rounds-helper.js";
import { SIMULATED_TARGET } from "../src/grade/simulator-numerics.js";
import { type Manifest, loadManifest } from "../src/manifest/index.js";

const binding = assignmentBinding("gemm-relu-add");
const N = 256;
let manifest: Manifest;
let helper: SampledRoundsHelper;
beforeAll(() => {
  manifest = loadManifest(binding.manifestPath);
  helper = new SampledRoundsHelper();
});
afterAll(async () => {
  await helper.dispose();
});

/** The plan of a `rounds`-round check of `sch` at N³ (the budget holds several of the manual schedule's blocks per round). */
function planOf(sch: Schedule, rounds = 4): SamplePlan {
  const planned = planSample({ module: lower(sch, SIMULATED_TARGET), binding, n: N, settings: { ...manifest.numerics, rounds }, seed: 3, workBudget: 2.2e7 });
  if (!planned.ok) throw new Error(planned.why);
  return planned.plan;
}

/** The outcome without its wall-clock seconds. */
function comparable(result: SampleResult): unknown {
  return { ...result, sample: { ...result.sample, seconds: 0 } };
}

/** The course's manual schedule at N³. */
function manual(): Schedule {
  return solution.manualSchedule(N);
}

describe("SampledRoundsHelper", () => {
  it("gives the same outcome as the rounds run here, with the worker running some of them", async () => {
    const plan = planOf(manual());
    expect(plan.rounds.length).toBe(4);
    const alone = runSample(plan, performance.now());
    expect(alone.error).toBeUndefined();
    const before = helper.stats.workerRounds;
    const shared = await helper.check(manual(), plan, performance.now());
    expect(comparable(shared)).toEqual(comparable(alone));
    expect(helper.stats.workerRounds - before).toBeGreaterThan(0);
  });

  it("stops where the rounds run here stop: the same failing round, the same counts", async () => {
    // The third round's block lies outside the grid: running that round fails, and the check ends there.
    const plan = planOf(manual());
    const broken: SamplePlan = { ...plan, rounds: plan.rounds.map((blocks, r) => (r === 2 ? [[999, 0, 0]] : blocks)) };
    const alone = runSample(broken, performance.now());
    expect(alone.error).toBeDefined();
    expect(alone.rounds.length).toBe(2);
    const shared = await helper.check(manual(), broken, performance.now());
    expect(comparable(shared)).toEqual(comparable(alone));
  });

  it("runs the rounds here when the worker cannot start, with the same outcome", async () => {
    const lame = new SampledRoundsHelper({ url: new URL("file:///nonexistent/rounds-worker.mjs"), typeScript: false });
    try {
      const plan = planOf(manual());
      const alone = runSample(plan, performance.now());
      const shared = await lame.check(manual(), plan, performance.now());
      expect(comparable(shared)).toEqual(comparable(alone));
      expect(lame.stats.workerRounds).toBe(0);
      expect(lame.stats.fallbackRounds).toBeGreaterThan(0);
    } finally {
      await lame.dispose();
    }
  });

  it("runs every round here when the worker's code cannot be found, and says why once", async () => {
    const troubles: string[] = [];
    const lost = new SampledRoundsHelper(
      () => {
        throw new Error("the worker entry rounds-worker was not found");
      },
      (why) => troubles.push(why),
    );
    try {
      const plan = planOf(manual(), 2);
      const alone = runSample(plan, performance.now());
      expect(comparable(await lost.check(manual(), plan, performance.now()))).toEqual(comparable(alone));
      expect(troubles).toEqual(["the worker entry rounds-worker was not found"]);
    } finally {
      await lost.dispose();
    }
  });
});

describe("splitRounds", () => {
  it("gives each side about half of the blocks, every round once", () => {
    const blocks = (k: number) => Array.from({ length: k }, (_, i) => [i, 0, 0] as [number, number, number]);
    const plan = { rounds: [blocks(2), blocks(1), blocks(1), blocks(1), blocks(1)] } as unknown as SamplePlan;
    const [mine, theirs] = splitRounds(plan);
    expect([...mine, ...theirs].sort()).toEqual([0, 1, 2, 3, 4]);
    const size = (rs: number[]) => rs.reduce((s, r) => s + plan.rounds[r]!.length, 0);
    expect(Math.abs(size(mine) - size(theirs))).toBeLessThanOrEqual(1);
  });
});

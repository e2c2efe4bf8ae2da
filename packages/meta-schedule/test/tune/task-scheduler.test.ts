import type { PrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { FAILED_RUN_SECS, GradientBased, RoundRobin, type SearchStrategy, type TrialEvent } from "../../src/index.js";
import { gradientScores } from "../../src/task-scheduler/gradient-based.js";
import { FakeCostModel, FakeDatabase, type FakeReplayTrace, fakeMeasurer, loopExtents } from "./fakes.js";
import { threadsOf, vectorAddLatency, vectorAddTask } from "./workloads.js";

describe("the tuning loop", () => {
  it("measures each batch, commits every trial (failures as run_secs [1e10]) and logs TVM's trial lines", async () => {
    const lines: string[] = [];
    const task = vectorAddTask(1024, { log: (_level, m) => lines.push(m), seed: 7 });
    const measurer = fakeMeasurer({
      latencyOf: vectorAddLatency,
      buildError: (f) => (threadsOf(f) > 256 ? `too many threads: ${threadsOf(f)}` : undefined),
    });
    const database = new FakeDatabase();
    const costModel = new FakeCostModel();
    const events: TrialEvent[] = [];
    const [record] = await new RoundRobin().tune([task], {
      ...measurer,
      database,
      costModel,
      maxTrialsGlobal: 20,
      numTrialsPerIter: 8,
      onTrial: (e) => events.push(e),
    });

    expect(record!.trials).toBe(20);
    expect(database.size()).toBe(20);
    expect(task.strategy.notified).toBe(20);
    expect(task.strategy.postTuned).toBe(true);
    expect(costModel.updated).toBe(20);
    expect(record!.done).toBe(true);
    const records = database.getAllTuningRecords();
    const failed = records.filter((r) => r.runSecs![0] === FAILED_RUN_SECS);
    expect(failed.length).toBe(record!.buildErrors);
    expect(failed.length).toBeGreaterThan(0);
    // Build failures never reach the runner.
    expect(measurer.ran).toBe(20 - failed.length);
    expect(record!.bestHistory).toHaveLength(3); // batches of 8, 8, 4

    const trialLines = lines.filter((l) => l.startsWith("[Task #0: main] Trial #"));
    expect(trialLines).toHaveLength(20);
    const good = trialLines.find((l) => l.includes("GFLOPs"))!;
    expect(good).toMatch(/^\[Task #0: main\] Trial #\d+: GFLOPs: \d+\.\d{4}\. Time: \d+\.\d{4} us\. Best GFLOPs: \d+\.\d{4}$/);
    expect(trialLines.find((l) => l.includes("Error"))).toMatch(/^\[Task #0: main\] Trial #\d+: Error in building: too many threads: \d+$/);

    // Events: one per trial, numbered, best-so-far never increasing.
    expect(events.map((e) => e.globalTrial)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (let i = 1; i < events.length; i++) expect(events[i]!.bestSecs).toBeLessThanOrEqual(events[i - 1]!.bestSecs);
    expect(events.at(-1)!.bestSecs).toBe(Math.min(...events.map((e) => e.latencySecs)));
    // A trial's time in the log is its latency (vector add of 1024: 1024 float additions).
    const first = events.find((e) => e.ok)!;
    expect(trialLines[first.trial - 1]).toContain(`GFLOPs: ${(1024 / first.latencySecs / 1e9).toFixed(4)}. Time: ${(first.latencySecs * 1e6).toFixed(4)} us.`);
  });

  it("with overlapSearch, searches each batch while the one before builds and runs, and joins the results in order", async () => {
    const run = async (overlapSearch: boolean) => {
      const task = vectorAddTask(1024, { seed: 7 });
      const measurer = fakeMeasurer({ latencyOf: vectorAddLatency });
      let building = 0;
      const build = measurer.builder.build.bind(measurer.builder);
      measurer.builder.build = async (inputs) => {
        building++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        try {
          return await build(inputs);
        } finally {
          building--;
        }
      };
      const seen: { notified: number; building: number }[] = [];
      const strategy: FakeReplayTrace = task.strategy;
      const generate = strategy.generateMeasureCandidates.bind(strategy);
      strategy.generateMeasureCandidates = (ctx) => {
        seen.push({ notified: task.strategy.notified, building });
        return generate(ctx);
      };
      const database = new FakeDatabase();
      const events: TrialEvent[] = [];
      await new RoundRobin().tune([task], { ...measurer, database, maxTrialsGlobal: 20, numTrialsPerIter: 8, overlapSearch, onTrial: (e) => events.push(e) });
      expect(events.map((e) => e.globalTrial)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(task.strategy.notified).toBe(20);
      return { seen, records: database.getAllTuningRecords().map((r) => JSON.stringify([r.trace, r.runSecs])) };
    };
    const serial = await run(false);
    const overlapped = await run(true);
    expect(serial.seen).toEqual([
      { notified: 0, building: 0 },
      { notified: 8, building: 0 },
      { notified: 16, building: 0 },
    ]);
    // Each search after the first runs while the batch before it is still building, with the results of the batches
    // before that one; the last (4 trials left) waits for every earlier batch, so that their results inform it.
    expect(overlapped.seen).toEqual([
      { notified: 0, building: 0 },
      { notified: 0, building: 1 },
      { notified: 16, building: 0 },
    ]);
    expect((await run(true)).records).toEqual(overlapped.records);
    expect(overlapped.records).toHaveLength(20);
  });

  /** How many measurements the task's strategy had been told of at each of its searches, in a run of `maxTrialsGlobal` trials in batches of 8 with overlapSearch. */
  const measuredAtEachSearch = async (maxTrialsGlobal: number, lastBatchSeesFirst: boolean) => {
    const task = vectorAddTask(1024, { seed: 7 });
    const measurer = fakeMeasurer({ latencyOf: vectorAddLatency });
    const strategy: FakeReplayTrace = task.strategy;
    const generate = strategy.generateMeasureCandidates.bind(strategy);
    const notifiedAtSearch: number[] = [];
    strategy.generateMeasureCandidates = (ctx) => {
      notifiedAtSearch.push(task.strategy.notified);
      return generate(ctx);
    };
    const database = new FakeDatabase();
    await new RoundRobin().tune([task], { ...measurer, database, maxTrialsGlobal, numTrialsPerIter: 8, overlapSearch: true, lastBatchSeesFirst });
    expect(database.getAllTuningRecords()).toHaveLength(maxTrialsGlobal);
    expect(task.strategy.notified).toBe(maxTrialsGlobal);
    return notifiedAtSearch;
  };

  it("with overlapSearch, does not hold a task's last batch for its first: a second round is searched while the first is measured", async () => {
    expect(await measuredAtEachSearch(16, false)).toEqual([0, 0]);
  });

  it("with overlapSearch and lastBatchSeesFirst, searches a two-batch run's second batch after its first is measured, and a longer run's as without it", async () => {
    const searchedAfter = (maxTrialsGlobal: number) => measuredAtEachSearch(maxTrialsGlobal, true);
    expect(await searchedAfter(16)).toEqual([0, 8]);
    // Three batches: the second is searched while the first is measured, the last after both.
    expect(await searchedAfter(24)).toEqual([0, 0, 16]);
  });

  it("with overlapSearch, builds each batch while the one before is measured, and never measures two batches at once", async () => {
    const run = async (overlapSearch: boolean) => {
      const task = vectorAddTask(1024, { seed: 7 });
      const measurer = fakeMeasurer({ latencyOf: vectorAddLatency });
      let running = 0;
      let mostRunning = 0;
      const buildsDuringRuns: boolean[] = [];
      const build = measurer.builder.build.bind(measurer.builder);
      measurer.builder.build = (inputs) => {
        buildsDuringRuns.push(running > 0);
        return build(inputs);
      };
      const measure = measurer.runner.run.bind(measurer.runner);
      measurer.runner.run = async (inputs) => {
        running++;
        mostRunning = Math.max(mostRunning, running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        try {
          return await measure(inputs);
        } finally {
          running--;
        }
      };
      const database = new FakeDatabase();
      await new RoundRobin().tune([task], { ...measurer, database, maxTrialsGlobal: 32, numTrialsPerIter: 8, overlapSearch });
      return { buildsDuringRuns, mostRunning, records: database.getAllTuningRecords().map((r) => JSON.stringify([r.trace, r.runSecs])) };
    };
    const serial = await run(false);
    const overlapped = await run(true);
    expect(serial.buildsDuringRuns).toEqual([false, false, false, false]);
    // The last batch is searched, and so built, after the batch before it is measured.
    expect(overlapped.buildsDuringRuns).toEqual([false, true, true, false]);
    expect(serial.mostRunning).toBe(1);
    expect(overlapped.mostRunning).toBe(1);
    expect((await run(true)).records).toEqual(overlapped.records);
    expect(overlapped.records).toHaveLength(32);
  });

  it("counts the search's wall with no batch in flight: all of it without overlapSearch, only the first and last searches with it", async () => {
    const run = async (overlapSearch: boolean) => {
      const task = vectorAddTask(1024, { seed: 7 });
      const measurer = fakeMeasurer({ latencyOf: vectorAddLatency });
      const measure = measurer.runner.run.bind(measurer.runner);
      measurer.runner.run = async (inputs) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return measure(inputs);
      };
      const strategy: SearchStrategy = task.strategy;
      const generate = strategy.generateMeasureCandidates.bind(strategy);
      strategy.generateMeasureCandidates = async (ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return generate(ctx);
      };
      const [record] = await new RoundRobin().tune([task], {
        ...measurer,
        database: new FakeDatabase(),
        maxTrialsGlobal: 32,
        numTrialsPerIter: 8,
        overlapSearch,
      });
      return record!.phaseMs;
    };
    const serial = await run(false);
    expect(serial.searchAlone).toBe(serial.search);
    expect(serial.search).toBeGreaterThanOrEqual(4 * 39);
    // Four searches of ≥ 40 ms: the first (nothing measured yet) and the last (it waits for every
    // earlier batch) are alone; the two between run while a batch is measured for 200 ms.
    const overlapped = await run(true);
    expect(overlapped.searchAlone).toBeGreaterThanOrEqual(2 * 39);
    expect(overlapped.search - overlapped.searchAlone).toBeGreaterThanOrEqual(2 * 39);
  });

  it("records run failures as failed trials and keeps tuning", async () => {
    const task = vectorAddTask(256, { seed: 3 });
    const measurer = fakeMeasurer({ latencyOf: vectorAddLatency, runError: (f) => (threadsOf(f) === 1 ? "illegal memory access" : undefined) });
    const database = new FakeDatabase();
    const [record] = await new RoundRobin().tune([task], { ...measurer, database, maxTrialsGlobal: 16, numTrialsPerIter: 16 });
    expect(database.size()).toBe(16);
    expect(record!.runErrors).toBe(record!.latencies.filter((t) => t === FAILED_RUN_SECS).length);
  });

  it("ends a task whose strategy has nothing more to try, and stops at the per-task budget", async () => {
    const a = vectorAddTask(64, { seed: 1 });
    const b = vectorAddTask(128, { seed: 2 });
    const { builder, runner } = fakeMeasurer({ latencyOf: vectorAddLatency });
    const records = await new RoundRobin().tune([a, b], {
      builder,
      runner,
      database: new FakeDatabase(),
      maxTrialsGlobal: 100,
      maxTrialsPerTask: 6,
      numTrialsPerIter: 4,
    });
    expect(records.map((r) => r.trials)).toEqual([6, 6]);
    expect(records.every((r) => r.done)).toBe(true);
  });

  it("ends a task at once when its strategy has nothing to try; the table shows N/A for it", async () => {
    const task = vectorAddTask(64);
    const empty = {
      ...task,
      strategy: { ...task.strategy, name: "Empty", preTuning() {}, generateMeasureCandidates: () => undefined, notifyRunnerResults() {}, postTuning() {} },
    };
    const { builder, runner } = fakeMeasurer({ latencyOf: vectorAddLatency });
    const lines: string[] = [];
    const [record] = await new RoundRobin().tune([empty], {
      builder,
      runner,
      database: new FakeDatabase(),
      maxTrialsGlobal: 10,
      log: (_l, m) => lines.push(m),
    });
    expect(record!.trials).toBe(0);
    expect(record!.done).toBe(true);
    expect(lines).toContain("Task #0 has finished. Remaining task(s): 0");
    expect(lines.at(-1)).toContain("  0 | main |   64 |      1 |            N/A |          N/A |                   N/A |      0 |    Y ");
  });

  it("reports the weighted sum of the tasks' best latencies as the run's best", async () => {
    const a = vectorAddTask(512, { seed: 1, weight: 2 });
    const b = vectorAddTask(64, { seed: 2 });
    const { builder, runner } = fakeMeasurer({ latencyOf: (f) => (loopExtentsProduct(f) === 512 ? 100e-6 : 10e-6) });
    const events: TrialEvent[] = [];
    await new RoundRobin().tune([a, b], {
      builder,
      runner,
      database: new FakeDatabase(),
      maxTrialsGlobal: 4,
      numTrialsPerIter: 2,
      onTrial: (e) => events.push(e),
    });
    expect(events.map((e) => e.totalBestSecs)).toEqual([200e-6, 200e-6, 210e-6, 210e-6]);
  });

  it("rejects bad budgets and empty task lists with a clear error", async () => {
    const { builder, runner } = fakeMeasurer({ latencyOf: vectorAddLatency });
    const base = { builder, runner, database: new FakeDatabase() };
    await expect(new RoundRobin().tune([vectorAddTask(64)], { ...base, maxTrialsGlobal: 0 })).rejects.toThrow(
      "maxTrialsGlobal must be a positive integer, got 0",
    );
    await expect(new RoundRobin().tune([vectorAddTask(64)], { ...base, maxTrialsGlobal: 8, numTrialsPerIter: 2.5 })).rejects.toThrow(
      "numTrialsPerIter must be a positive integer, got 2.5",
    );
    await expect(new RoundRobin().tune([], { ...base, maxTrialsGlobal: 8 })).rejects.toThrow("at least one task");
  });
});

describe("RoundRobin", () => {
  it("visits the tasks cyclically, skipping those done", async () => {
    const tasks = [vectorAddTask(64, { seed: 1 }), vectorAddTask(128, { seed: 2 }), vectorAddTask(256, { seed: 3 })];
    const { builder, runner } = fakeMeasurer({ latencyOf: vectorAddLatency });
    const order: number[] = [];
    await new RoundRobin().tune(tasks, {
      builder,
      runner,
      database: new FakeDatabase(),
      maxTrialsGlobal: 22,
      maxTrialsPerTask: 8,
      numTrialsPerIter: 4,
      onTrial: (e) => {
        if (e.trial % 4 === 1) order.push(e.taskId);
      },
    });
    expect(order).toEqual([0, 1, 2, 0, 1, 2]);
  });
});

describe("GradientBased", () => {
  it("scores (α·g1 + (1−α)·g2)·weight on a crafted history", () => {
    const [withWindow, short, failed, weighted] = gradientScores(
      [
        { bestHistory: [10, 8, 6, 5, 4], weight: 1 }, // n = 5, w = 3: g1 = (b[1] − b[4]) / 3 = 4/3, g2 = 4/5
        { bestHistory: [9, 6], weight: 1 }, // n = 2 < w + 1: g1 = 0, g2 = 6/2
        { bestHistory: [FAILED_RUN_SECS], weight: 1 },
        { bestHistory: [2, 2, 2, 2], weight: 3 }, // g1 = 0, g2 = 2/4, × 3
      ],
      0.2,
      3,
    );
    expect(withWindow).toBeCloseTo(0.2 * (4 / 3) + 0.8 * (4 / 5), 12);
    expect(short).toBeCloseTo(0.8 * 3, 12);
    expect(failed).toBe(-1e9);
    expect(weighted).toBeCloseTo(0.8 * 0.5 * 3, 12);
  });

  it("runs every task once, then the task with the highest score", async () => {
    // Constant latencies per task: the slow task (100 us) scores 100/n against the fast one's 10/n.
    const slow = vectorAddTask(512, { seed: 1, name: "slow" });
    const fast = vectorAddTask(64, { seed: 2, name: "fast" });
    const { builder, runner } = fakeMeasurer({ latencyOf: (f) => (loopExtentsProduct(f) === 512 ? 100e-6 : 10e-6) });
    const order: string[] = [];
    await new GradientBased({ seed: 5 }).tune([slow, fast], {
      builder,
      runner,
      database: new FakeDatabase(),
      maxTrialsGlobal: 11,
      numTrialsPerIter: 1,
      onTrial: (e) => order.push(e.taskName),
    });
    // slow, fast (round robin), then slow while 100/n_slow > 10/1: n_slow = 1..9 → 9 more.
    expect(order).toEqual(["slow", "fast", ...Array<string>(9).fill("slow")]);
  });

  it("weights the score by the task weight", async () => {
    const slow = vectorAddTask(512, { seed: 1, name: "slow" });
    const fast = vectorAddTask(64, { seed: 2, name: "fast", weight: 20 });
    const { builder, runner } = fakeMeasurer({ latencyOf: (f) => (loopExtentsProduct(f) === 512 ? 100e-6 : 10e-6) });
    const order: string[] = [];
    await new GradientBased({ seed: 5 }).tune([slow, fast], {
      builder,
      runner,
      database: new FakeDatabase(),
      maxTrialsGlobal: 4,
      numTrialsPerIter: 1,
      onTrial: (e) => order.push(e.taskName),
    });
    // fast: 10·20/n = 200, 100, 66.7 against slow's 100: fast, then a tie (random), …
    expect(order.slice(0, 3)).toEqual(["slow", "fast", "fast"]);
  });

  it("rejects an alpha outside [0, 1]", () => {
    expect(() => new GradientBased({ alpha: 1.5 })).toThrow("alpha must be in [0, 1], got 1.5");
  });
});

/** The work of a vector add: the product of its loop extents. */
function loopExtentsProduct(f: PrimFunc): number {
  return loopExtents(f).reduce((a, b) => a * b, 1);
}

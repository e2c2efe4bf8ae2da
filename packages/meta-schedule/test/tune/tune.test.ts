import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { target as resolveTarget } from "@tessera/codegen";
import { irModule, vectorAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import {
  EvolutionarySearch,
  ForestModel,
  JSONDatabase,
  LocalRunner,
  makeCostModel,
  makeRunner,
  makeStrategy,
  MemoryDatabase,
  openDatabase,
  queryBestRecord,
  ReplayTraceStrategy,
  resolveTuneTarget,
  type SearchStrategy,
  SimulatedRunner,
  tuneTasks,
  tuneTIR,
} from "../../src/index.js";
import { bestSoFarPoints } from "../../src/report/tuning-curve.js";
import { historySeries, readTuningHistory } from "../../src/report/tuning-history.js";
import { FakeCostModel, FakeDatabase, FakeReplayTrace, fakeMeasurer, fakeScheduleFnSpace } from "./fakes.js";
import { H100, splitAndBind, threadsOf, vectorAddLatency } from "./workloads.js";

const workDir = () => mkdtempSync(join(tmpdir(), "tessera-tune-"));

function fakeComponents() {
  const measurer = fakeMeasurer({ latencyOf: vectorAddLatency, buildError: (f) => (threadsOf(f) > 512 ? "too many threads" : undefined) });
  return {
    space: fakeScheduleFnSpace(splitAndBind),
    costModel: new FakeCostModel(),
    builder: measurer.builder,
    runner: measurer.runner,
    database: new FakeDatabase(),
  };
}

describe("tuneTIR", () => {
  it("tunes a function and returns its best record, schedule and the history; writes history and curve", async () => {
    const dir = workDir();
    const lines: string[] = [];
    const progress: number[] = [];
    const result = await tuneTIR(vectorAdd(1024).func, H100, {
      ...fakeComponents(),
      workDir: dir,
      strategy: new FakeReplayTrace(),
      maxTrialsGlobal: 24,
      numTrialsPerIter: 8,
      seed: 11,
      logger: (_level, m) => lines.push(m),
      onProgress: (p) => progress.push(p.trialsDone),
    });
    expect(result.history).toHaveLength(24);
    expect(progress).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const best = Math.min(...result.history.map((t) => t.latencySecs));
    expect(result.tasks[0]!.bestLatency).toBe(best);
    expect(result.bestRecord!.runSecs).toEqual([best]);
    // The best schedule is the record's trace replayed: it has the latency measured for it.
    expect(vectorAddLatency(result.bestSchedule!.func)).toBe(best);
    expect(result.database.size()).toBe(24);
    expect(result.summary).toContain("Total trials: 24");
    expect(lines.some((l) => l.includes("Total trials: 24"))).toBe(true);
    expect(lines.filter((l) => /^\[Task #0: main\] Trial #\d+: /.test(l))).toHaveLength(24);

    const history = JSON.parse(readFileSync(result.files.history, "utf8")) as { run: string; trials: { trial: number; bestSecs: number | null }[] };
    expect(history.run).toBe("custom strategy, seed 11");
    expect(history.trials).toHaveLength(24);
    expect(history.trials.at(-1)!.bestSecs).toBe(best);
    expect(result.files.curveSvg).toBe(join(dir, "tuning-curve.svg"));
    expect(readFileSync(result.files.curveSvg!, "utf8")).toMatch(/^<svg[\s\S]*main on nvidia\/h100[\s\S]*<\/svg>\s*$/);
    expect(existsSync(join(dir, "tuning-curve.png"))).toBe(true);

    // TVM's log files: the task's trials and design space, the scheduler's summary.
    const taskLog = readFileSync(join(dir, "logs", "task_0_main.log"), "utf8");
    expect(taskLog).toMatch(/\[DEBUG\] \[Task #0: main\] Design space #0:\n/);
    expect(taskLog.match(/\[(INFO|WARN)\] \[Task #0: main\] Trial #\d+: /g)).toHaveLength(24);
    expect(readFileSync(join(dir, "logs", "task_scheduler.log"), "utf8")).toContain("Total trials: 24");
  });

  it("logs the search's wall per batch and how much of it the search's own thread was busy (not its time waiting, as on replay workers)", async () => {
    /** A search that waits `waitMs` (as for its workers' replies) before each batch. */
    const waitingSearch = (waitMs: number): SearchStrategy => {
      const inner = new FakeReplayTrace();
      return {
        name: "WaitingSearch",
        preTuning: (ctx, opts) => inner.preTuning(ctx, opts),
        generateMeasureCandidates: async (ctx) => {
          await new Promise((resolve) => setTimeout(resolve, waitMs));
          return inner.generateMeasureCandidates(ctx);
        },
        notifyRunnerResults: (ctx, candidates, results) => inner.notifyRunnerResults(ctx, candidates, results),
        postTuning: () => inner.postTuning(),
      };
    };
    const phases = async (waitMs: number) => {
      const lines: string[] = [];
      await tuneTIR(vectorAdd(1024).func, H100, {
        ...fakeComponents(),
        workDir: workDir(),
        strategy: waitingSearch(waitMs),
        maxTrialsGlobal: 16,
        numTrialsPerIter: 8,
        seed: 11,
        logger: (_level, m) => lines.push(m),
      });
      const batches = lines.flatMap((l) => {
        const m =
          /batch of 8: time so far in search (\d+\.\d) s \(its thread busy (\d+\.\d) s, no batch in flight (\d+\.\d) s\), build \d+\.\d s, run \d+\.\d s$/.exec(
            l,
          );
        return m === null ? [] : [{ search: Number(m[1]), busy: Number(m[2]), alone: Number(m[3]) }];
      });
      expect(batches).toHaveLength(2);
      return batches.at(-1)!;
    };
    // Two batches each waiting 400 ms: at least 0.8 s of search, of which the thread was busy far less.
    const waiting = await phases(400);
    expect(waiting.search).toBeGreaterThanOrEqual(0.8);
    expect(waiting.busy).toBeLessThan(waiting.search - 0.6);
    // Without overlapSearch no batch is in flight while the search runs.
    expect(waiting.alone).toBe(waiting.search);
    // Busy is part of the search's wall, never more.
    const busy = await phases(0);
    expect(busy.busy).toBeLessThanOrEqual(busy.search + 0.1);
  });

  it("refuses lastBatchSeesFirst without overlapSearch, which alone gives it a meaning, before it tunes anything", async () => {
    const dir = workDir();
    const options = {
      ...fakeComponents(),
      workDir: dir,
      strategy: new FakeReplayTrace(),
      maxTrialsGlobal: 4,
      numTrialsPerIter: 4,
      seed: 3,
      lastBatchSeesFirst: true,
    };
    await expect(tuneTIR(vectorAdd(256).func, H100, options)).rejects.toThrow(/lastBatchSeesFirst needs overlapSearch/);
    expect((await tuneTIR(vectorAdd(256).func, H100, { ...options, workDir: workDir(), overlapSearch: true })).bestRecord).toBeDefined();
  });

  it("takes a target string as TVM's tune_tir does, and names the known targets for an unknown one", async () => {
    const options = () => ({ ...fakeComponents(), workDir: workDir(), strategy: new FakeReplayTrace(), maxTrialsGlobal: 4, numTrialsPerIter: 4, seed: 3 });
    const byName = await tuneTIR(vectorAdd(256).func, "nvidia/h100", options());
    const byTarget = await tuneTIR(vectorAdd(256).func, H100, options());
    expect(byName.history.map((t) => t.latencySecs)).toEqual(byTarget.history.map((t) => t.latencySecs));
    expect(resolveTuneTarget("llvm").kind).toBe("c");
    await expect(tuneTIR(vectorAdd(256).func, "nvidia/gtx-480", options())).rejects.toThrow(/unknown target "nvidia\/gtx-480"; known targets: .*llvm/);
  });

  it("writes a history that reads back as the curve of the run", async () => {
    const dir = workDir();
    const result = await tuneTIR(vectorAdd(256).func, H100, {
      ...fakeComponents(),
      workDir: dir,
      strategy: new FakeReplayTrace(),
      maxTrialsGlobal: 8,
      numTrialsPerIter: 8,
      seed: 4,
      runName: "replay, seed 4",
      writeCurve: false,
    });
    const series = historySeries(await readTuningHistory(result.files.history));
    expect(series.name).toBe("replay, seed 4");
    expect(series.points).toEqual(bestSoFarPoints(result.history.map((t) => t.latencySecs)));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ run: "x", trials: [{ task: "main", trial: 0 }] }));
    await expect(readTuningHistory(join(dir, "bad.json"))).rejects.toThrow(/bad\.json: not a tuning history: trials\.0\.trial: /);
  });

  it("is deterministic for a seed", async () => {
    const run = async () =>
      (
        await tuneTIR(vectorAdd(512).func, H100, {
          ...fakeComponents(),
          workDir: workDir(),
          strategy: new FakeReplayTrace(),
          maxTrialsGlobal: 16,
          numTrialsPerIter: 8,
          seed: 5,
          writeCurve: false,
        })
      ).history.map((t) => t.latencySecs);
    expect(await run()).toEqual(await run());
  });

  it("tunes each function of a module as a task, with one strategy per task", async () => {
    const mod = irModule({ small: vectorAdd(128).func, large: vectorAdd(2048).func });
    const result = await tuneTIR(mod, H100, {
      ...fakeComponents(),
      workDir: workDir(),
      strategy: () => new FakeReplayTrace(),
      taskScheduler: "round-robin",
      maxTrialsGlobal: 16,
      numTrialsPerIter: 4,
      seed: 2,
      writeCurve: false,
    });
    expect(result.tasks.map((t) => [t.name, t.trials])).toEqual([
      ["large", 8],
      ["small", 8],
    ]);
    expect(result.tasks.map((t) => t.flop)).toEqual([2048, 128]);
    expect(queryBestRecord(result.database, vectorAdd(2048).func)).toBeDefined();
  });

  it("refuses one strategy instance for several tasks", async () => {
    const run = tuneTasks([{ func: vectorAdd(64).func }, { func: vectorAdd(128).func }], H100, {
      ...fakeComponents(),
      workDir: workDir(),
      strategy: new FakeReplayTrace(),
      maxTrialsGlobal: 4,
    });
    await expect(run).rejects.toThrow("give a factory (() => strategy) to tune 2 tasks");
  });

  it("has no best record for a workload the database does not know", () => {
    expect(queryBestRecord(new FakeDatabase(), vectorAdd(64).func)).toBeUndefined();
  });
});

describe("components by name", () => {
  it("a local runner checks every candidate's outputs: against the first candidate on a GPU, a C reference on the CPU (regression: GPU candidates were only timed)", async () => {
    const gpu = makeRunner("local", resolveTarget("nvidia/h100")) as LocalRunner;
    const cpu = makeRunner("local", resolveTarget("c")) as LocalRunner;
    try {
      expect(gpu.checkName).toBe("first-result");
      expect(cpu.checkName).toBe("host-reference");
    } finally {
      await gpu.dispose();
      await cpu.dispose();
    }
  });

  it("makes the component each name stands for", () => {
    expect(makeStrategy("evolutionary")).toBeInstanceOf(EvolutionarySearch);
    expect(makeStrategy("replay-trace")).toBeInstanceOf(ReplayTraceStrategy);
    expect(makeCostModel("xgb")).toBeInstanceOf(ForestModel);
    expect(makeCostModel("none")).toBeUndefined();
    expect(makeRunner("simulated")).toBeInstanceOf(SimulatedRunner);
    expect(makeRunner("local")).toBeInstanceOf(LocalRunner);
    expect(openDatabase("memory", workDir())).toBeInstanceOf(MemoryDatabase);
    expect(openDatabase("json", workDir())).toBeInstanceOf(JSONDatabase);
  });
});

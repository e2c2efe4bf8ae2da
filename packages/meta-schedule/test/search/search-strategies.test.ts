import { target } from "@tessera/codegen";
import { structuralEqual, structuralHash } from "@tessera/ir";
import { type Schedule, Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import {
  type CostModel,
  type Database,
  EvolutionarySearch,
  type MeasureCandidate,
  MemoryDatabase,
  MetaScheduleError,
  type Mutator,
  type Postproc,
  ReplayFuncStrategy,
  ReplayTraceStrategy,
  ScheduleFnSpace,
  type SearchStrategy,
  replayWithPostprocs,
  tuneContext,
} from "../../src/index.js";
import { SAME_PROGRAM_AS_PARENT } from "../../src/search/evolutionary-search.js";
import { rewriteUnboundBlock } from "../../src/postproc/rewrite-unbound-block.js";
import { VerifyGPUCode } from "../../src/postproc/verify-gpu-code.js";
import { launchClassOf } from "../../src/search/launch-classes.js";
import {
  MAX_THREADS,
  NearestNeighbourModel,
  fakeLatency,
  gemmTileSpace,
  gemmWorkload,
  mutateTile,
  threadLimit,
  tileDecisions,
  tuneWithFakeRunner,
} from "./gemm-fixture.js";

/** The value of the fixture's sampled "knob" annotation. */
function knobOf(trace: Trace): number {
  const inst = trace.instructions.find((i) => i.kind.name === "SampleCategorical")!;
  return (inst.attrs[0] as number[])[trace.getDecision(inst) as number]!;
}

const THREAD_LIMIT_REASON = `postproc threadLimit: more than ${MAX_THREADS} threads per block`;

/** Each handed-out candidate replays from its JSON trace to the same program, and obeys the postprocessor. */
function expectValidAndDistinct(handedOut: readonly MeasureCandidate[]): void {
  const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 0 });
  const hashes = new Set<string>();
  for (const c of handedOut) {
    const [[, ti], [, tj]] = tileDecisions(c.sch.trace) as [number[], number[]];
    expect(ti! * tj!).toBeLessThanOrEqual(MAX_THREADS);
    const again = replayWithPostprocs(ctx, Trace.fromJSON(JSON.stringify(c.sch.trace.toJSON())), [threadLimit], { seed: 1 });
    expect(again.ok).toBe(true);
    if (again.ok) expect(structuralEqual(again.sch.func, c.sch.func)).toBe(true);
    hashes.add(structuralHash(c.sch.func));
  }
  expect(hashes.size).toBe(handedOut.length);
}

describe("ReplayTraceStrategy", () => {
  it("hands out valid, distinct samples until the trials are used, and tallies why samples were rejected", async () => {
    const strategy = new ReplayTraceStrategy();
    const out = await tuneWithFakeRunner(strategy, { seed: 7, maxTrials: 40, numTrialsPerIter: 16 });
    expect(out.handedOut).toHaveLength(40);
    expect(out.batches).toBe(3);
    expectValidAndDistinct(out.handedOut);
    const tally = new Map(strategy.rejectionTally());
    expect(tally.get(THREAD_LIMIT_REASON)).toBeGreaterThan(0);
  });

  it("every sample tried is handed out or tallied with a reason", async () => {
    let tried = 0;
    const counting: Postproc = { name: "threadLimit", apply: (sch, ctx) => (tried++, threadLimit.apply(sch, ctx)) };
    const workload = gemmWorkload();
    const ctx = tuneContext(workload, target("nvidia/h100"), { seed: 3 });
    const space = new ScheduleFnSpace(gemmTileSpace, { postprocs: [counting] });
    const strategy = new ReplayTraceStrategy();
    strategy.preTuning(ctx, {
      maxTrials: 30,
      numTrialsPerIter: 30,
      designSpaces: space.generateDesignSpace(ctx),
      space,
      database: new MemoryDatabase(),
      costModel: undefined,
    });
    const batch = strategy.generateMeasureCandidates(ctx)!;
    const rejectedCount = strategy.rejectionTally().reduce((sum, [, n]) => sum + n, 0);
    expect(batch).toHaveLength(30);
    expect(tried).toBe(batch.length + rejectedCount);
  });

  it("ends when the space has nothing new left, after handing out every point once", async () => {
    // Only k is sampled: 64 = ko·ki with ki ≤ 16 has 5 points.
    const small = new ScheduleFnSpace((sch) => {
      const [, , k] = sch.getLoops(sch.getBlock("gemm"));
      sch.split(k, sch.samplePerfectTile(k, 2, 16));
    });
    for (const strategy of [new ReplayTraceStrategy({ maxFailCount: 50 }), new EvolutionarySearch({ populationSize: 16 })] as SearchStrategy[]) {
      const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 5 });
      strategy.preTuning(ctx, {
        maxTrials: 20,
        numTrialsPerIter: 4,
        designSpaces: small.generateDesignSpace(ctx),
        space: small,
        database: new MemoryDatabase(),
        costModel: undefined,
      });
      const all: MeasureCandidate[] = [];
      for (let batch = await strategy.generateMeasureCandidates(ctx); batch !== undefined; batch = await strategy.generateMeasureCandidates(ctx))
        all.push(...batch);
      expect(new Set(all.map((c) => structuralHash(c.sch.func))).size).toBe(5);
      expect(all).toHaveLength(5);
      expect(await strategy.generateMeasureCandidates(ctx)).toBeUndefined();
    }
  });
});

describe("ReplayFuncStrategy", () => {
  it("re-runs the space function, so a structure chosen by a sampled value varies (a replayed trace keeps one branch)", async () => {
    const branch = (sch: Schedule): void => {
      const [, , k] = sch.getLoops(sch.getBlock("gemm"));
      const chunk = sch.sampleCategorical([0, 1], [0.5, 0.5]);
      if (sch.get(chunk) === 1) sch.split(k, [null, 8]);
    };
    // One run of the function: one design space, one branch (TVM's ScheduleFn).
    const single = new ScheduleFnSpace(branch, { structureSamples: 1 });
    const loopCounts = async (strategy: SearchStrategy, space: ScheduleFnSpace) => {
      const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 8 });
      strategy.preTuning(ctx, {
        maxTrials: 2,
        numTrialsPerIter: 2,
        designSpaces: space.generateDesignSpace(ctx),
        space,
        database: new MemoryDatabase(),
        costModel: undefined,
      });
      return (await strategy.generateMeasureCandidates(ctx))!.map((c) => c.sch.getLoops(c.sch.getBlock("gemm")).length).sort();
    };
    expect(await loopCounts(new ReplayFuncStrategy(), single)).toEqual([3, 4]);
    // The replayed trace carries the recorded branch: both samples have the same structure, and
    // the one whose fresh decision disagrees with it is the same program, so only one is new.
    expect(new Set(await loopCounts(new ReplayTraceStrategy({ maxFailCount: 20 }), single)).size).toBe(1);
  });

  it("collects one design space per distinct trace shape of the space function, so replaying covers every branch", async () => {
    const branching = new ScheduleFnSpace((sch) => {
      const [, , k] = sch.getLoops(sch.getBlock("gemm"));
      const chunk = sch.sampleCategorical([0, 1], [0.5, 0.5]);
      if (sch.get(chunk) === 1) sch.split(k, [null, 8]);
    });
    const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 8 });
    const spaces = branching.generateDesignSpace(ctx);
    expect(spaces.map((s) => s.getLoops(s.getBlock("gemm")).length).sort()).toEqual([3, 4]);
    const strategy = new ReplayTraceStrategy({ maxFailCount: 20 });
    strategy.preTuning(ctx, {
      maxTrials: 8,
      numTrialsPerIter: 8,
      designSpaces: spaces,
      space: branching,
      database: new MemoryDatabase(),
      costModel: undefined,
    });
    const counts = new Set(strategy.generateMeasureCandidates(ctx)!.map((c) => c.sch.getLoops(c.sch.getBlock("gemm")).length));
    expect(counts).toEqual(new Set([3, 4]));
  });

  it("tallies a space function that fails for some samples, and hands out the others", async () => {
    const fragile = new ScheduleFnSpace(function fragile(sch) {
      const [i] = sch.getLoops(sch.getBlock("gemm"));
      const [, inner] = sch.split(i, sch.samplePerfectTile(i, 2, 64));
      if (sch.get(inner).extent.kind === "IntImm" && (sch.get(inner).extent as { value: number }).value > 16) throw new RangeError("tile too large");
    });
    const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 2 });
    const strategy = new ReplayFuncStrategy();
    const designSpaces = [new ScheduleFnSpace(gemmTileSpace).generateDesignSpace(ctx)[0]!];
    strategy.preTuning(ctx, { maxTrials: 5, numTrialsPerIter: 5, designSpaces, space: fragile, database: new MemoryDatabase(), costModel: undefined });
    const batch = strategy.generateMeasureCandidates(ctx)!;
    expect(batch).toHaveLength(5);
    expect(new Map(strategy.rejectionTally()).get("the space function failed")).toBeGreaterThan(0);
  });
});

describe("EvolutionarySearch", () => {
  // Whether it finds faster candidates than random search: search-quality.test.ts (pnpm test:slow).
  it("hands out valid, distinct candidates across batches, seeds its population from the database, and tallies rejections", async () => {
    const memory = new MemoryDatabase();
    const topK: Array<[k: number, got: number]> = [];
    const database: Database = {
      hasWorkload: (f) => memory.hasWorkload(f),
      commitWorkload: (f) => memory.commitWorkload(f),
      commitTuningRecord: (r) => memory.commitTuningRecord(r),
      getTopK(w, k) {
        const records = memory.getTopK(w, k);
        topK.push([k, records.length]);
        return records;
      },
      getAllTuningRecords: () => memory.getAllTuningRecords(),
      size: () => memory.size(),
    };
    const strategy = new EvolutionarySearch({ populationSize: 48 });
    const out = await tuneWithFakeRunner(strategy, { seed: 11, maxTrials: 40, numTrialsPerIter: 16, costModel: new NearestNeighbourModel(), database });
    expect(out.handedOut).toHaveLength(40);
    expectValidAndDistinct(out.handedOut);
    expect(memory.size()).toBe(40);
    // 20% of 48 from the database: none before the first batch, then the 9 best.
    expect(topK).toEqual([
      [9, 0],
      [9, 9],
      [9, 9],
    ]);
    const tally = new Map(strategy.rejectionTally());
    expect(tally.get(THREAD_LIMIT_REASON)).toBeGreaterThan(0);
  });

  it("with freshPoolSize, starts from the cost model's best of that many fresh samples (a population of them gives the same batch)", async () => {
    // The model knows the fake latency exactly, so a batch's picks are the best of what it saw
    // (no climbs, which would add their neighbours to what it saw).
    const oracle: CostModel = { name: "oracle", update: () => {}, predict: (_ctx, cs) => cs.map((c) => 1 / fakeLatency(c.sch)) };
    const firstBatch = async (config: ConstructorParameters<typeof EvolutionarySearch>[0]) => {
      const out = await tuneWithFakeRunner(
        new EvolutionarySearch({ geneticNumIters: 0, epsGreedy: 0, maxClassShare: 1, neighbourShare: 0, climbStarts: 0, ...config }),
        {
          seed: 13,
          maxTrials: 4,
          numTrialsPerIter: 4,
          costModel: oracle,
        },
      );
      return out.handedOut.map((c) => fakeLatency(c.sch)).sort((a, b) => a - b);
    };
    const pooled = await firstBatch({ populationSize: 8, freshPoolSize: 64 });
    // The same 64 draws as a population of 64, whose best four the batch is.
    expect(pooled).toEqual(await firstBatch({ populationSize: 64 }));
    // Without the pool the population is the first 8 of those draws: no pick is better, and the batch is slower.
    const unpooled = await firstBatch({ populationSize: 8 });
    expect(unpooled).toHaveLength(4);
    unpooled.forEach((latency, k) => expect(pooled[k]!).toBeLessThanOrEqual(latency));
    const sum = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0);
    expect(sum(pooled)).toBeLessThan(sum(unpooled));
    expect(() => new EvolutionarySearch({ freshPoolSize: -1 })).toThrow(/freshPoolSize must be an integer ≥ 0, got -1/);
  });

  it("keeps any one launch shape to maxClassShare of a batch's cost-model picks; 1 lets the favourites fill it (TVM)", async () => {
    // The model prefers blocks of 128 threads far above everything else.
    // The first kernel (the gemm; the ReLU and add are kernels of their own here).
    const is128 = (shape: string | undefined) =>
      shape !== undefined &&
      shape
        .split("; ")[0]!
        .split("/")[1]!
        .split("×")
        .reduce((a, b) => a * Number(b), 1) === 128;
    const favourite: CostModel = {
      name: "favourite",
      update: () => {},
      predict: (_ctx, cs) => cs.map((c) => (is128(launchClassOf(c.sch)) ? 1 : 0.01)),
    };
    const shapesOfFirstBatch = async (maxClassShare: number) => {
      const out = await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 64, epsGreedy: 0, maxClassShare }), {
        seed: 5,
        maxTrials: 16,
        numTrialsPerIter: 16,
        costModel: favourite,
        postprocs: [rewriteUnboundBlock(), new VerifyGPUCode()],
      });
      const counts = new Map<string, number>();
      for (const c of out.handedOut) counts.set(launchClassOf(c.sch)!, (counts.get(launchClassOf(c.sch)!) ?? 0) + 1);
      return counts;
    };
    // Without a cap (TVM) the favourite shapes fill the batch, several programs each.
    const uncapped = await shapesOfFirstBatch(1);
    expect([...uncapped.entries()].filter(([k]) => is128(k)).reduce((a, [, n]) => a + n, 0)).toBe(16);
    expect(Math.max(...uncapped.values())).toBeGreaterThan(1);
    // A cap of one program per shape (1/16 of 16 picks): every shape once, the favourites first.
    const capped = await shapesOfFirstBatch(1 / 16);
    expect([...capped.values()].reduce((a, b) => a + b, 0)).toBe(16);
    expect(Math.max(...capped.values())).toBe(1);
    for (const shape of uncapped.keys()) expect(capped.has(shape)).toBe(true);
    expect(() => new EvolutionarySearch({ maxClassShare: 0 })).toThrow(/maxClassShare/);
  });

  it("chooses mutators in proportion to their probabilities", async () => {
    const calls = { often: 0, rarely: 0 };
    const counted = (name: "often" | "rarely"): Mutator => ({ name, apply: (trace, rng, ctx) => (calls[name]++, mutateTile.apply(trace, rng, ctx)) });
    const workload = gemmWorkload();
    const ctx = tuneContext(workload, target("nvidia/h100"), { seed: 9 });
    const space = new ScheduleFnSpace(gemmTileSpace, {
      postprocs: [threadLimit],
      mutators: [
        { mutator: counted("often"), probability: 0.9 },
        { mutator: counted("rarely"), probability: 0.1 },
      ],
    });
    const strategy = new EvolutionarySearch({ populationSize: 64, geneticMutateProb: 1, crossoverProb: 0 });
    strategy.preTuning(ctx, {
      maxTrials: 16,
      numTrialsPerIter: 16,
      designSpaces: space.generateDesignSpace(ctx),
      space,
      database: new MemoryDatabase(),
      costModel: undefined,
    });
    expect(await strategy.generateMeasureCandidates(ctx)).toHaveLength(16);
    expect(calls.often + calls.rarely).toBeGreaterThanOrEqual(3 * 64);
    expect(calls.often / (calls.often + calls.rarely)).toBeGreaterThan(0.8);
    expect(calls.rarely).toBeGreaterThan(0);
  });

  it("crossover children take the loop structure of one member of the population and the knobs of another", async () => {
    // gemmTileSpace plus a sampled knob that changes the program but not its loops; no climbs and
    // one island, so that every scored population is a generation, in order: the population and its
    // two generations (further islands evolve concurrently, their generations interleaved).
    const withKnob = (sch: Schedule) => {
      gemmTileSpace(sch);
      sch.annotate(sch.getBlock("gemm"), "knob", sch.sampleCategorical([1, 2, 3, 4], [0.25, 0.25, 0.25, 0.25]));
    };
    const pointOf = (sch: Schedule) => ({ tiles: JSON.stringify(tileDecisions(sch.trace)), knob: knobOf(sch.trace) });
    const generations: Array<Array<{ tiles: string; knob: number }>> = [];
    const spy: CostModel = {
      name: "spy",
      update: () => {},
      predict: (_ctx, cs) => {
        generations.push(cs.map((c) => pointOf(c.sch)));
        return cs.map(() => 1);
      },
    };
    const strategy = new EvolutionarySearch({ populationSize: 32, crossoverProb: 1, geneticNumIters: 2, climbStarts: 0, firstRoundIslands: 1 });
    const out = await tuneWithFakeRunner(strategy, { seed: 4, maxTrials: 16, numTrialsPerIter: 16, costModel: spy, spaceFn: withKnob });
    expect(out.handedOut).toHaveLength(16);
    expectValidAndDistinct(out.handedOut);
    expect(generations.length).toBe(3);
    let crossed = 0;
    for (let g = 1; g < generations.length; g++) {
      const parents = generations[g - 1]!;
      for (const child of generations[g]!) {
        // A copy of a parent (a slot whose tries all failed), or a crossover of two.
        const isCopy = parents.some((p) => p.tiles === child.tiles && p.knob === child.knob);
        if (isCopy) continue;
        crossed++;
        expect(parents.some((p) => p.tiles === child.tiles)).toBe(true);
        expect(parents.some((p) => p.knob === child.knob)).toBe(true);
      }
    }
    expect(crossed).toBeGreaterThan(10);
  });

  it("tries a slot again when its mutation gives the parent's program back, and tallies why", async () => {
    // Re-sets a decision to its own value: the same program as the parent, every time.
    const noChange: Mutator = {
      name: "noChange",
      apply: (trace) => {
        const inst = trace.instructions.find((i) => i.kind.name === "SamplePerfectTile")!;
        return trace.withDecision(inst, trace.getDecision(inst), { removePostproc: true });
      },
    };
    const workload = gemmWorkload();
    const ctx = tuneContext(workload, target("nvidia/h100"), { seed: 3 });
    const space = new ScheduleFnSpace(gemmTileSpace, { postprocs: [threadLimit], mutators: [{ mutator: noChange, probability: 1 }] });
    const strategy = new EvolutionarySearch({ populationSize: 32, geneticMutateProb: 1, crossoverProb: 0 });
    strategy.preTuning(ctx, {
      maxTrials: 8,
      numTrialsPerIter: 8,
      designSpaces: space.generateDesignSpace(ctx),
      space,
      database: new MemoryDatabase(),
      costModel: undefined,
    });
    expect(await strategy.generateMeasureCandidates(ctx)).toHaveLength(8);
    const tally = new Map(strategy.rejectionTally());
    // Every try of every slot of the 3 generations: 11 tries per slot (one island: no cost model).
    expect(tally.get(SAME_PROGRAM_AS_PARENT)).toBe(3 * 32 * 11);
  });

  it("works without a cost model (random scores)", async () => {
    const logs: string[] = [];
    const out = await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 32 }), {
      seed: 2,
      maxTrials: 24,
      numTrialsPerIter: 8,
      log: (_l, m) => logs.push(m),
    });
    expect(out.handedOut).toHaveLength(24);
    expectValidAndDistinct(out.handedOut);
    expect(logs[0]).toMatch(/^\[gemm\] evolutionarySearch: 8 candidate\(s\) to measure \(8\/24 trials\); rejected this round: /);
    expect(logs.at(-1)).toMatch(/^\[gemm\] evolutionarySearch: done after 24 trials; rejected candidates: .*postproc threadLimit/);
  });

  it("never hands out a program the database already holds, even when the same seed replays the same samples", async () => {
    const strategies = [() => new ReplayTraceStrategy(), () => new EvolutionarySearch({ populationSize: 32 })];
    for (const make of strategies) {
      const first = await tuneWithFakeRunner(make(), { seed: 4, maxTrials: 24, numTrialsPerIter: 8 });
      const again = make();
      const second = await tuneWithFakeRunner(again, { seed: 4, maxTrials: 24, numTrialsPerIter: 8, database: first.database });
      const before = new Set(first.handedOut.map((c) => structuralHash(c.sch.func)));
      expect(second.handedOut).toHaveLength(24);
      for (const c of second.handedOut) expect(before.has(structuralHash(c.sch.func))).toBe(false);
      if (again instanceof ReplayTraceStrategy)
        expect(new Map(again.rejectionTally()).get("duplicate of a candidate already measured")).toBeGreaterThanOrEqual(24);
    }
  });

  it("ends with the reason when no sample of the space is valid", async () => {
    const logs: string[] = [];
    const never: Postproc = { name: "never", apply: () => ({ ok: false, reason: "shared memory exceeds 48 KiB" }) };
    const space = new ScheduleFnSpace(gemmTileSpace, { postprocs: [never] });
    const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 1, log: (_level, m) => logs.push(m) });
    const strategy = new EvolutionarySearch({ populationSize: 16, maxFailCount: 2 });
    strategy.preTuning(ctx, {
      maxTrials: 8,
      numTrialsPerIter: 8,
      designSpaces: space.generateDesignSpace(ctx),
      space,
      database: new MemoryDatabase(),
      costModel: undefined,
    });
    expect(await strategy.generateMeasureCandidates(ctx)).toBeUndefined();
    expect(strategy.rejectionTally()).toEqual([["postproc never: shared memory exceeds 48 KiB", 32]]);
    expect(await strategy.generateMeasureCandidates(ctx)).toBeUndefined();
    expect(strategy.rejectionTally()).toEqual([["postproc never: shared memory exceeds 48 KiB", 32]]);
    expect(logs.join("\n")).toMatch(/only 0 valid samples.*32× postproc never: shared memory exceeds 48 KiB/);
  });

  it("goes on from the few valid samples of a space that mostly fails, with a warning", async () => {
    const logs: string[] = [];
    let calls = 0;
    // Accepts one sample in eight: fewer valid samples than the population wants.
    const rarely: Postproc = { name: "rarely", apply: () => (calls++ % 8 === 0 ? { ok: true } : { ok: false, reason: "unlucky" }) };
    const space = new ScheduleFnSpace(gemmTileSpace, { postprocs: [rarely] });
    const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 1, log: (_level, m) => logs.push(m) });
    const strategy = new EvolutionarySearch({ populationSize: 32, maxFailCount: 1 });
    strategy.preTuning(ctx, {
      maxTrials: 4,
      numTrialsPerIter: 4,
      designSpaces: space.generateDesignSpace(ctx),
      space,
      database: new MemoryDatabase(),
      costModel: undefined,
    });
    const batch = await strategy.generateMeasureCandidates(ctx);
    expect(batch).toBeDefined();
    expect(batch!.length).toBeGreaterThan(0);
    expect(logs.join("\n")).toMatch(/only \d+ valid samples of the design space \(\d+ wanted\); evolving from them/);
  });

  it("rejects bad parameters and use before preTuning with clear errors", async () => {
    expect(() => new EvolutionarySearch({ populationSize: 0 })).toThrow(/populationSize must be an integer ≥ 1, got 0/);
    expect(() => new EvolutionarySearch({ epsGreedy: 2 })).toThrow(MetaScheduleError);
    expect(() => new EvolutionarySearch({ crossoverProb: 1.5 })).toThrow(/crossoverProb must be a number in \[0, 1\], got 1.5/);
    const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 1 });
    expect(() => new EvolutionarySearch().generateMeasureCandidates(ctx)).toThrow(/called before preTuning/);
  });

  it("resolves the automatic population size from the batch size and the trial budget", async () => {
    const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed: 1 });
    const space = new ScheduleFnSpace(gemmTileSpace);
    const sizeFor = (maxTrials: number, numTrialsPerIter: number) => {
      const s = new EvolutionarySearch();
      s.preTuning(ctx, {
        maxTrials,
        numTrialsPerIter,
        designSpaces: space.generateDesignSpace(ctx),
        space,
        database: new MemoryDatabase(),
        costModel: undefined,
      });
      return s.resolvedPopulationSize;
    };
    expect([1, 32, 64, 200].map((perIter) => sizeFor(10, perIter))).toEqual([64, 64, 128, 256]);
    expect([64, 100, 256, 2000].map((trials) => sizeFor(trials, 32))).toEqual([64, 100, 256, 256]);
  });

  it("first-round islands: two are the default; with three the first batch is the best the model scores among them, never worse than one's", async () => {
    const model: CostModel = { name: "oracle", update: () => {}, predict: (_ctx, cs) => cs.map((c) => 1 / fakeLatency(c.sch)) };
    const run = async (config: ConstructorParameters<typeof EvolutionarySearch>[0]) =>
      (
        await tuneWithFakeRunner(new EvolutionarySearch({ climbStarts: 0, populationSize: 8, ...config }), {
          seed: 21,
          maxTrials: 8,
          numTrialsPerIter: 4,
          costModel: model,
        })
      ).handedOut;
    const keys = (cs: readonly { readonly sch: Schedule }[]) => cs.map((c) => JSON.stringify(c.sch.trace.toJSON()));
    expect(new EvolutionarySearch().config.firstRoundIslands).toBe(2);
    const one = await run({ firstRoundIslands: 1 });
    const three = await run({ firstRoundIslands: 3 });
    expect(three).toHaveLength(8);
    // The first batch is the best the model scores among three islands: never worse than one island's, here better.
    const bestLatency = (cs: readonly { readonly sch: Schedule }[]) => Math.min(...cs.map((c) => fakeLatency(c.sch)));
    expect(bestLatency(three.slice(0, 4))).toBeLessThanOrEqual(bestLatency(one.slice(0, 4)));
    expect(keys(three.slice(0, 4))).not.toEqual(keys(one.slice(0, 4)));
    expect(() => new EvolutionarySearch({ firstRoundIslands: 0 })).toThrow(/firstRoundIslands must be an integer ≥ 1, got 0/);
  });

  it("first-round islands need a cost model: without one (random scores) two islands hand out what one does", async () => {
    const run = async (firstRoundIslands: number) =>
      (
        await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 8, firstRoundIslands }), { seed: 5, maxTrials: 8, numTrialsPerIter: 4 })
      ).handedOut.map((c) => JSON.stringify(c.sch.trace.toJSON()));
    const one = await run(1);
    expect(one).toHaveLength(8);
    expect(await run(2)).toEqual(one);
  });

  it("first-round islands that add nothing to the picks leave the whole search as it was, draw for draw (their own random stream)", async () => {
    // A model that scores every program alike: the first island's programs come first among equals,
    // so the islands' programs never reach the picks; every later batch must be the one-island search's.
    const flat: CostModel = { name: "flat", update: () => {}, predict: (_ctx, cs) => cs.map(() => 1) };
    const run = async (firstRoundIslands: number) =>
      (
        await tuneWithFakeRunner(new EvolutionarySearch({ climbStarts: 0, populationSize: 8, maxClassShare: 1, epsGreedy: 0, firstRoundIslands }), {
          seed: 5,
          maxTrials: 12,
          numTrialsPerIter: 4,
          costModel: flat,
        })
      ).handedOut.map((c) => JSON.stringify(c.sch.trace.toJSON()));
    const one = await run(1);
    expect(one).toHaveLength(12);
    expect(await run(3)).toEqual(one);
  });
});

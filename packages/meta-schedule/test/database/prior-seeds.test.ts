/**
 * The built-in prior seeds (the 2048³ gemm winners) moved onto other GEMM shapes: at 4096³ they
 * keep their 128×128 tiles of 128 threads; on small and non-divisible shapes every one is rejected
 * with a reason or simulates equal to the executor; spaces of other structure match none; the
 * evolutionary search hands them out in its first batch, and beside one that leaves most SMs idle
 * its best one-decision neighbour with more blocks (search/grid-filling.ts).
 */
import { conv2d, gemmReluAdd, matmul, structuralEqual } from "@tessera/ir";
import type { Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { GEMM_WINNERS_2048, seedsFromPriors, withDecisionValues } from "../../src/database/prior-seeds.js";
import { EvolutionarySearch, MemoryDatabase, replayWithPostprocs, workloadOf } from "../../src/index.js";
import { estimateLatency } from "../../src/latency-model/index.js";
import { instructionsBeforePostproc } from "../../src/mutator/trace-queries.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { gridBlocksOf, launchClassOf } from "../../src/search/launch-classes.js";
import { batchMatmul, checkSimulatedOrRejected, spaceOf } from "../space-gpu/helpers.js";

describe("prior seeds", () => {
  it("give 4096³ the 2048³ winner's 128×128 tiles of 128 threads", () => {
    const func = matmul(4096, 4096, 4096).func;
    const { ctx, gen, spaces } = spaceOf(func);
    const trace = withDecisionValues(spaces[0]!.trace, GEMM_WINNERS_2048[0]!);
    expect(trace).toBeDefined();
    const out = replayWithPostprocs(ctx, trace!, gen.postprocs, { seed: 1 });
    expect(out.ok).toBe(true);
    const [kernel] = estimateLatency(loweredModuleFor(out.ok ? out.sch.func : func)!).kernels;
    expect([kernel!.profile.blocks, kernel!.profile.threadsPerBlock]).toEqual([1024, 128]);
  });

  it.each([
    ["matmul 127×63×12", matmul(127, 63, 12).func],
    ["matmul 64×96×40", matmul(64, 96, 40).func],
    ["batched matmul 2×33×65×16", batchMatmul(2, 33, 65, 16)],
  ])(
    "on %s are rejected with a reason or simulate equal to the executor",
    (_, func) => {
      const { ctx, gen, spaces } = spaceOf(func);
      const seeds = seedsFromPriors(workloadOf(func), [spaces[0]!.trace], GEMM_WINNERS_2048.length);
      expect(seeds).toHaveLength(GEMM_WINNERS_2048.length);
      const outcomes = seeds.map((t, k) => checkSimulatedOrRejected(replayWithPostprocs(ctx, t, gen.postprocs, { seed: k }), func, k));
      expect(outcomes).toContain("simulated");
    },
    60_000,
  );

  it("match no design space whose sampling steps differ", () => {
    const conv = conv2d({ batch: 1, inChannels: 2, outChannels: 4, height: 5, width: 5, kernel: 3, padding: 1 }).func;
    expect(seedsFromPriors(workloadOf(conv), [spaceOf(conv).spaces[0]!.trace], 4)).toEqual([]);
    const [values] = GEMM_WINNERS_2048;
    expect(withDecisionValues(spaceOf(matmul(64, 64, 32).func).spaces[0]!.trace, values!.slice(1))).toBeUndefined();
  });

  it("are not given to the 2048³ gemm+ReLU+add they were measured on", () => {
    const func = gemmReluAdd(2048).func;
    expect(seedsFromPriors(workloadOf(func), [spaceOf(func).spaces[0]!.trace], 4)).toEqual([]);
    const other = gemmReluAdd(1024).func;
    expect(seedsFromPriors(workloadOf(other), [spaceOf(other).spaces[0]!.trace], 4)).toHaveLength(4);
  });

  it("are handed out by the evolutionary search's first batch", async () => {
    const func = matmul(256, 256, 64).func;
    const { ctx, gen, spaces } = spaceOf(func);
    const seeds = seedsFromPriors(workloadOf(func), [spaces[0]!.trace], 2)
      .map((t) => replayWithPostprocs(ctx, t, gen.postprocs, { seed: 1 }))
      .flatMap((o) => (o.ok ? [o.sch.func] : []));
    expect(seeds).toHaveLength(2);
    const search = new EvolutionarySearch({ populationSize: 16, priorSeeds: 2, geneticNumIters: 0, maxClassShare: 1, neighbourShare: 0, epsGreedy: 0 });
    search.preTuning(ctx, { maxTrials: 16, numTrialsPerIter: 16, designSpaces: spaces, space: gen, database: new MemoryDatabase(), costModel: undefined });
    const batch = (await search.generateMeasureCandidates(ctx))!;
    for (const seed of seeds) expect(batch.some((c) => structuralEqual(c.sch.func, seed))).toBe(true);
  });

  it("bring, beside a moved winner that leaves most SMs idle, its best neighbour with more blocks", async () => {
    // 256×256×64 under the 2048³ winners' 128×128 tiles: 4 blocks on the H100 model's 132 SMs.
    const func = matmul(256, 256, 64).func;
    const { ctx, gen, spaces } = spaceOf(func);
    const seeds = seedsFromPriors(workloadOf(func), [spaces[0]!.trace], GEMM_WINNERS_2048.length).map((t, k) => {
      const out = replayWithPostprocs(ctx, t, gen.postprocs, { seed: 1 });
      if (!out.ok) throw new Error(`moved winner ${k} no longer replays`);
      return out.sch;
    });
    const seedBlocks = gridBlocksOf({ launchClass: launchClassOf(seeds[0]!) })!;
    expect(seedBlocks).toBeLessThan(ctx.target.kind === "cuda" ? ctx.target.multiProcessorCount : 0);
    // Room for the four winners and one filler.
    const search = new EvolutionarySearch({
      populationSize: 16,
      priorSeeds: seeds.length + 1,
      geneticNumIters: 0,
      maxClassShare: 1,
      neighbourShare: 0,
      epsGreedy: 0,
    });
    search.preTuning(ctx, { maxTrials: 16, numTrialsPerIter: 16, designSpaces: spaces, space: gen, database: new MemoryDatabase(), costModel: undefined });
    const batch = (await search.generateMeasureCandidates(ctx))!;
    // The moved winners first, then the first one's filler: one sampling decision away, more blocks.
    seeds.forEach((sch, k) => expect(structuralEqual(batch[k]!.sch.func, sch.func)).toBe(true));
    const filler = batch[seeds.length]!.sch;
    expect(changedDecisions(seeds[0]!.trace, filler.trace)).toBe(1);
    expect(gridBlocksOf({ launchClass: launchClassOf(filler) })).toBeGreaterThan(seedBlocks);
  }, 120_000);
});

/** How many sampling decisions of `b` differ from `a`'s (the same design space). */
function changedDecisions(a: Trace, b: Trace): number {
  const decisions = (t: Trace) =>
    instructionsBeforePostproc(t)
      .filter((i) => i.kind.name.startsWith("Sample"))
      .map((i) => JSON.stringify(t.getDecision(i)));
  const [x, y] = [decisions(a), decisions(b)];
  expect(y).toHaveLength(x.length);
  return x.filter((d, k) => d !== y[k]).length;
}

/**
 * Seeds from similar workloads: the best records of a matmul of another shape, retargeted onto a
 * new matmul's design space, replay and simulate equal to the executor; records of another op
 * structure are not used; the evolutionary search hands the seeds out in its first batch.
 */
import { conv2d, matmul, type PrimFunc, structuralEqual } from "@tessera/ir";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { describe, expect, it } from "vitest";
import { EvolutionarySearch, MemoryDatabase, argsInfoOf, replayWithPostprocs, workloadOf } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { seedsFromSimilarWorkloads } from "../../src/database/similar-records.js";
import { spaceOf } from "../space-gpu/helpers.js";

const TARGET = { name: "nvidia/h100", arch: "sm_90", maxThreadsPerBlock: 1024, maxSharedMemoryPerBlock: 49152 };

/** A database with `count` valid sampled records of `func`, the k-th measured (k + 1) µs. */
function databaseWithRecords(db: MemoryDatabase, func: PrimFunc, count: number): void {
  const { ctx, gen, spaces } = spaceOf(func);
  const workload = workloadOf(func);
  let committed = 0;
  for (let seed = 1; committed < count && seed < 100; seed++) {
    const out = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
    if (!out.ok) continue;
    db.commitTuningRecord({ workload, trace: out.sch.trace.toJSON(), runSecs: [(committed + 1) * 1e-6], target: TARGET, argsInfo: argsInfoOf(func) });
    committed++;
  }
}

describe("seedsFromSimilarWorkloads", () => {
  const db = new MemoryDatabase();
  databaseWithRecords(db, matmul(64, 64, 32).func, 4);
  databaseWithRecords(db, conv2d({ batch: 1, inChannels: 4, outChannels: 8, height: 6, width: 6, kernel: 3, padding: 1 }).func, 2);

  it("retargets another shape's records onto the new design space; they replay and simulate equal", () => {
    const func = matmul(48, 80, 40).func;
    const { ctx, gen, spaces } = spaceOf(func);
    const seeds = seedsFromSimilarWorkloads(db, workloadOf(func), [spaces[0]!.trace], 8, { targetName: "nvidia/h100" });
    // The matmul's 4 records (the conv2d's traces take other steps).
    expect(seeds.length).toBeGreaterThan(0);
    expect(seeds.length).toBeLessThanOrEqual(4);
    let simulated = 0;
    for (const [k, trace] of seeds.entries()) {
      const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: k });
      if (!out.ok) continue;
      simulated++;
      const report = compareWithReference(loweredModuleFor(out.sch.func)!, func, { seed: k, rtol: 1e-4, atol: 1e-4 });
      expect(report.passed, formatComparison(report)).toBe(true);
    }
    expect(simulated).toBeGreaterThan(0);
  });

  it("finds nothing for a workload of another structure, or for another target", () => {
    const matmulOnly = new MemoryDatabase();
    databaseWithRecords(matmulOnly, matmul(64, 64, 32).func, 2);
    const conv = conv2d({ batch: 1, inChannels: 2, outChannels: 4, height: 5, width: 5, kernel: 3, padding: 1 }).func;
    expect(seedsFromSimilarWorkloads(matmulOnly, workloadOf(conv), [spaceOf(conv).spaces[0]!.trace], 8)).toEqual([]);
    const func = matmul(48, 80, 40).func;
    expect(seedsFromSimilarWorkloads(matmulOnly, workloadOf(func), [spaceOf(func).spaces[0]!.trace], 8)).toHaveLength(2);
    expect(seedsFromSimilarWorkloads(matmulOnly, workloadOf(func), [spaceOf(func).spaces[0]!.trace], 8, { targetName: "nvidia/a100" })).toEqual([]);
  });

  it("are handed out by the evolutionary search's first batch", async () => {
    const func = matmul(48, 80, 40).func;
    const { ctx, gen, spaces } = spaceOf(func);
    const seeds = seedsFromSimilarWorkloads(db, workloadOf(func), [spaces[0]!.trace], 2, { targetName: "nvidia/h100" })
      .map((t) => replayWithPostprocs(ctx, t, gen.postprocs, { seed: 1 }))
      .flatMap((o) => (o.ok ? [o.sch.func] : []));
    expect(seeds.length).toBeGreaterThan(0);
    const search = new EvolutionarySearch({ populationSize: 16, similarSeeds: 2, geneticNumIters: 0, maxClassShare: 1, neighbourShare: 0, epsGreedy: 0 });
    search.preTuning(ctx, { maxTrials: 16, numTrialsPerIter: 16, designSpaces: spaces, space: gen, database: db, costModel: undefined });
    const batch = (await search.generateMeasureCandidates(ctx))!;
    for (const seed of seeds) expect(batch.some((c) => structuralEqual(c.sch.func, seed))).toBe(true);
  });
});

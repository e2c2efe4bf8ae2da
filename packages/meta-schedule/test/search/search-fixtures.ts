/** What the search tests share: a 128³ matmul in the default CUDA space, and a search run to its end. */
import { target } from "@tessera/codegen";
import { matmul, structuralHash } from "@tessera/ir";
import { argsInfoOf } from "../../src/arg-info.js";
import { AnalyticModel, EvolutionarySearch, type EvolutionarySearchConfig, MemoryDatabase } from "../../src/index.js";
import { defaultCudaSpaceGenerator } from "../../src/space/defaults.js";
import { tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";

export const H100 = target("nvidia/h100");
export const func = matmul(128, 128, 128).func;

/** A stand-in latency that depends on the program only. */
export function fakeSeconds(hash: string): number {
  return 1e-4 * (1 + Number.parseInt(hash.slice(0, 6), 16) / 0xffffff);
}

/** The tuning context and the initialized default CUDA space for `seed`. */
export function searchContext(seed: number) {
  const ctx = tuneContext(workloadOf(func), H100, { seed });
  const space = defaultCudaSpaceGenerator(H100);
  space.initialize?.(ctx);
  return { ctx, space };
}

/** `searchContext(seed)`, the first design space's trace, and that trace with its first sample undecided. */
export function replayFixture(seed: number) {
  const { ctx, space } = searchContext(seed);
  const design = space.generateDesignSpace(ctx)[0]!.trace.simplified({ removePostproc: true });
  const sample = design.instructions.find((inst) => inst.kind.name.startsWith("Sample"))!;
  return { ctx, space, design, undecided: design.withDecision(sample, undefined) };
}

/**
 * One climb of one step a round instead of the default four of two (two thirds of
 * `handedOutTraces`' CPU): for tests that compare a search's candidates under two replay paths (a
 * pool, a cache). The climb's neighbours are still replayed as one batch through the path under
 * test, as every climb's are; model-climb.test.ts checks what the climbs find.
 */
export const ONE_CLIMB: Partial<EvolutionarySearchConfig> = { climbStarts: 1, climbSteps: 1 };

/**
 * The traces an evolutionary search hands out over two batches (default CUDA space, analytic cost
 * model, results recorded), in order; `configure` sees the strategy before it starts (a replay pool),
 * `config` overrides the search's settings.
 */
export async function handedOutTraces(
  seed: number,
  configure?: (strategy: EvolutionarySearch) => void,
  config: Partial<EvolutionarySearchConfig> = {},
): Promise<string[]> {
  const { ctx, space } = searchContext(seed);
  const database = new MemoryDatabase();
  const costModel = new AnalyticModel();
  const strategy = new EvolutionarySearch({ populationSize: 8, geneticNumIters: 2, ...config });
  configure?.(strategy);
  strategy.preTuning(ctx, { maxTrials: 8, numTrialsPerIter: 4, designSpaces: space.generateDesignSpace(ctx), space, database, costModel });
  const traces: string[] = [];
  for (let batch = await strategy.generateMeasureCandidates(ctx); batch !== undefined; batch = await strategy.generateMeasureCandidates(ctx)) {
    const results = batch.map((c) => ({ ok: true as const, runSecs: [fakeSeconds(structuralHash(c.sch.func))] }));
    batch.forEach((c, k) => {
      traces.push(JSON.stringify(c.sch.trace.toJSON()));
      database.commitTuningRecord({
        workload: database.commitWorkload(func),
        trace: c.sch.trace.toJSON(),
        runSecs: results[k]!.runSecs,
        target: H100,
        argsInfo: argsInfoOf(func),
      });
    });
    costModel.update(ctx, batch, results);
    strategy.notifyRunnerResults(ctx, batch, results);
  }
  return traces;
}

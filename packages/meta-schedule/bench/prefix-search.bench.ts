/**
 * `tsx --conditions=@tessera/source packages/meta-schedule/bench/prefix-search.bench.ts [--trials 64] [--per-iter 32] [--seed 1] [--states 1024]`
 *
 * How often an evolutionary search's replays resume from a cached prefix state
 * (space/prefix-states.ts), and the CPU of the search: gemm+ReLU+add 2048³ in the default CUDA
 * space, the default search settings, the analytic cost model, a stand-in latency that depends on
 * the program only, no worker threads. Prints the CPU seconds of the search, the replays that
 * resumed from a cached state and those that did not, and the instructions skipped.
 */
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { type CudaTarget, target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { AnalyticModel, EvolutionarySearch, MemoryDatabase } from "../src/index.js";
import { defaultCudaSpaceGenerator } from "../src/space/defaults.js";
import { DEFAULT_PREFIX_STATES, resetThreadPrefixStates, threadPrefixStates } from "../src/space/prefix-states.js";
import { tuneContext } from "../src/tune-context.js";
import { workloadOf } from "../src/workload.js";
import { measureWithStandIn } from "./stand-in-latency.js";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "64" },
    "per-iter": { type: "string", default: "32" },
    seed: { type: "string", default: "1" },
    /** Cached prefix states (0: every replay from scratch, as before them). */
    states: { type: "string", default: String(DEFAULT_PREFIX_STATES) },
  },
});
resetThreadPrefixStates(Number(values.states));
const H100 = target("nvidia/h100") as CudaTarget;
const func = gemmReluAdd(2048).func;
const ctx = tuneContext(workloadOf(func), H100, { seed: Number(values.seed) });
const space = defaultCudaSpaceGenerator(H100);
space.initialize?.(ctx);
const database = new MemoryDatabase();
const costModel = new AnalyticModel();
const strategy = new EvolutionarySearch();
strategy.useReplayPool(undefined);
const started = process.cpuUsage();
strategy.preTuning(ctx, {
  maxTrials: Number(values.trials),
  numTrialsPerIter: Number(values["per-iter"]),
  designSpaces: space.generateDesignSpace(ctx),
  space,
  database,
  costModel,
});
let measured = 0;
const traces: string[] = [];
for (let batch = await strategy.generateMeasureCandidates(ctx); batch !== undefined; batch = await strategy.generateMeasureCandidates(ctx)) {
  const results = measureWithStandIn(database, func, H100, batch);
  measured += batch.length;
  for (const c of batch) traces.push(JSON.stringify(c.sch.trace.toJSON()));
  costModel.update(ctx, batch, results);
  strategy.notifyRunnerResults(ctx, batch, results);
}
const spent = process.cpuUsage(started);
const cache = threadPrefixStates();
console.log(
  JSON.stringify({
    measured,
    searchCpuSeconds: +((spent.user + spent.system) / 1e6).toFixed(1),
    cpuMsPerMeasured: Math.round((spent.user + spent.system) / 1000 / measured),
    resumed: cache.hits,
    fromScratch: cache.misses,
    instructionsSkippedPerResume: +(cache.instructionsSkipped / Math.max(1, cache.hits)).toFixed(1),
    statesHeld: cache.size,
    states: Number(values.states),
    tracesDigest: createHash("sha256").update(traces.join("\n")).digest("hex").slice(0, 12),
    heapMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  }),
);

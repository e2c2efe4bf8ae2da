/**
 * `tsx --conditions=@tessera/source packages/meta-schedule/bench/search-critical-path.bench.ts [--trials 64] [--per-iter 32] [--seed 1] [--population auto|N] [--workers 0] [--overlap] [--start-workers-after-ms N] [--model hybrid|analytic] [--model-workers 15] [--phases]`
 *
 * Where an evolutionary search's time goes, round by round: gemm+ReLU+add 2048³ in the default
 * CUDA space, the default search settings, the default GPU cost model (hybrid: the analytic prior
 * and a forest on kernel-summary rows, trained on each batch), a stand-in latency that depends on
 * the program only. Per round it prints the CPU of the search's own thread split into replays done
 * there, the cost model's predictions, its training, and the rest (draws, mutators, bookkeeping);
 * the process's CPU (the workers' replays with it); the batches of replays the round waited on
 * (each `replayAll` is a barrier: the search goes on only when its slowest replay is back); and of
 * its replays, those the replay cache answered, those replayed, and of these the ones whose
 * resulting trace, or program, an earlier replay of the run had given already. The
 * main thread's CPU is read from /proc/thread-self (Linux).
 *
 * From the batch sizes it derives what the replays would take on W workers with a replay cost of
 * t: `Σ ceil(n / W) · t` (each batch waits for its fullest worker) against the perfect `Σ n · t / W`.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CudaTarget, target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { AnalyticModel, EvolutionarySearch, HybridModel, MemoryDatabase } from "../src/index.js";
import type { CostModel } from "../src/interfaces/cost-model.js";
import { verdictMemoCounts } from "../src/postproc/verify-gpu-code.js";
import { CandidateReplayer } from "../src/search/candidate-replayer.js";
import { ReplayPool } from "../src/search/replay-pool.js";
import { defaultCudaSpaceGenerator } from "../src/space/defaults.js";
import { tuneContext } from "../src/tune-context.js";
import { workloadOf } from "../src/workload.js";
import { measureWithStandIn } from "./stand-in-latency.js";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "64" },
    "per-iter": { type: "string", default: "32" },
    seed: { type: "string", default: "1" },
    population: { type: "string", default: "auto" },
    workers: { type: "string", default: "0" },
    model: { type: "string", default: "hybrid" },
    /** As tuneTIR's pool with overlapSearch: the search's thread takes no share of a batch. */
    overlap: { type: "boolean", default: false },
    /** The pool's startWorkersAfterCpuMs (default: the pool's default, as tuneTIR). */
    "start-workers-after-ms": { type: "string" },
    /** Worker counts to derive the replays' wall for from the batch sizes. */
    "model-workers": { type: "string", default: "15" },
    /** Also print, per round, the replays of each step of the search (see PHASES). */
    phases: { type: "boolean", default: false },
  },
});

/** CPU ms of the calling thread (Linux: /proc/thread-self/stat, in clock ticks of 10 ms). */
function threadCpuMs(): number {
  const fields = readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
const processCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface RoundStats {
  replayMainMs: number;
  predictMs: number;
  trainMs: number;
  batches: number[];
  replayWallMs: number;
  /** Plans answered by the replay cache (replay-cache.ts) without replaying. */
  cacheHits: number;
  /** Replays done (in a worker or here): the plans less the cache's hits. */
  replayed: number;
  /** Of them, ones whose resulting trace (decisions included) an earlier replay of the run gave already. */
  repeatedTrace: number;
  /** Of them, ones whose program (structural hash) an earlier replay of the run gave already. */
  repeatedProgram: number;
}
const fresh = (): RoundStats => ({
  replayMainMs: 0,
  predictMs: 0,
  trainMs: 0,
  batches: [],
  replayWallMs: 0,
  cacheHits: 0,
  replayed: 0,
  repeatedTrace: 0,
  repeatedProgram: 0,
});
let round = fresh();
/** Every resulting trace and program the run's replays gave so far, to count repeats. */
const tracesReplayed = new Set<string>();
const programsReplayed = new Set<string>();
/** The round (1-based) each resulting trace was first replayed in. */
const roundOfTrace = new Map<string, number>();
let roundNumber = 1;

/**
 * The steps of EvolutionarySearch whose replays `--phases` counts apart (their method names):
 * the database's records, the fresh samples (and the seeds and grid fillers drawn with them),
 * the generations, the climbs, the measured programs' neighbourhoods.
 */
const PHASES = ["pickBestFromDatabase", "sampleInitPopulation", "nextGeneration", "climb", "pickNeighbours"] as const;
interface PhaseStats {
  plans: number;
  cacheHits: number;
  replayed: number;
  /** Replayed, though an earlier round's replay gave the same trace (a cache across rounds would answer it). */
  earlierRound: number;
  /** Replayed, though an earlier replay of this round gave the same trace. */
  sameRound: number;
}
let phase = "other";
let phaseStats = new Map<string, PhaseStats>();
const statsOf = (name: string): PhaseStats => {
  let s = phaseStats.get(name);
  if (s === undefined) phaseStats.set(name, (s = { plans: 0, cacheHits: 0, replayed: 0, earlierRound: 0, sameRound: 0 }));
  return s;
};
const searchProto = EvolutionarySearch.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
for (const name of PHASES) {
  const method = searchProto[name]!;
  searchProto[name] = async function (this: unknown, ...args: unknown[]) {
    const outer = phase;
    phase = name;
    try {
      return await method.apply(this, args);
    } finally {
      phase = outer;
    }
  };
}

// Time the barriers: every replayAll is one (the search waits for all of its replies).
const replayAll = CandidateReplayer.prototype.replayAll;
CandidateReplayer.prototype.replayAll = async function (this: CandidateReplayer, plans, tally) {
  const t0 = performance.now();
  const c0 = threadCpuMs();
  round.batches.push(plans.length);
  const hits0 = this.cache.hits;
  const stats = statsOf(phase);
  stats.plans += plans.length;
  try {
    return await replayAll.call(this, plans, tally);
  } finally {
    stats.cacheHits += this.cache.hits - hits0;
    round.cacheHits += this.cache.hits - hits0;
    round.replayWallMs += performance.now() - t0;
    round.replayMainMs += threadCpuMs() - c0;
  }
};

// Count what was replayed rather than answered by the cache, and how often it repeats an earlier replay.
type Outcome = { candidate: { traceKey: string; hash: string } } | { rejected: string };
const uncached = CandidateReplayer.prototype as unknown as { replayUncached: (...args: unknown[]) => Promise<Outcome[]> };
const replayUncached = uncached.replayUncached;
uncached.replayUncached = async function (this: CandidateReplayer, ...args: unknown[]) {
  const outcomes = await replayUncached.apply(this, args);
  round.replayed += outcomes.length;
  const stats = statsOf(phase);
  stats.replayed += outcomes.length;
  for (const o of outcomes) {
    if (!("candidate" in o)) continue;
    const first = roundOfTrace.get(o.candidate.traceKey);
    if (first === undefined) roundOfTrace.set(o.candidate.traceKey, roundNumber);
    else if (first < roundNumber) stats.earlierRound++;
    else stats.sameRound++;
    if (tracesReplayed.has(o.candidate.traceKey)) round.repeatedTrace++;
    if (programsReplayed.has(o.candidate.hash)) round.repeatedProgram++;
    tracesReplayed.add(o.candidate.traceKey);
    programsReplayed.add(o.candidate.hash);
  }
  return outcomes;
};

function timedModel(model: CostModel): CostModel {
  const predict = model.predict.bind(model);
  const update = model.update.bind(model);
  model.predict = (ctx, candidates) => {
    const c0 = threadCpuMs();
    try {
      return predict(ctx, candidates);
    } finally {
      round.predictMs += threadCpuMs() - c0;
    }
  };
  model.update = (ctx, candidates, results) => {
    const c0 = threadCpuMs();
    try {
      update(ctx, candidates, results);
    } finally {
      round.trainMs += threadCpuMs() - c0;
    }
  };
  return model;
}

const H100 = target("nvidia/h100") as CudaTarget;
const func = gemmReluAdd(2048).func;
const ctx = tuneContext(workloadOf(func), H100, { seed: Number(values.seed) });
const space = defaultCudaSpaceGenerator(H100);
space.initialize?.(ctx);
const database = new MemoryDatabase();
const costModel = timedModel(values.model === "analytic" ? new AnalyticModel() : new HybridModel());
const strategy = new EvolutionarySearch(values.population === "auto" ? {} : { populationSize: Number(values.population) });
const workers = Number(values.workers);
const startAfter = values["start-workers-after-ms"];
const pool =
  workers > 0
    ? new ReplayPool({ workers, callerShare: !values.overlap, ...(startAfter === undefined ? {} : { startWorkersAfterCpuMs: Number(startAfter) }) })
    : undefined;
strategy.useReplayPool(pool);
strategy.preTuning(ctx, {
  maxTrials: Number(values.trials),
  numTrialsPerIter: Number(values["per-iter"]),
  designSpaces: space.generateDesignSpace(ctx),
  space,
  database,
  costModel,
});
const modelWorkers = values["model-workers"].split(",").map(Number);
const rows: Record<string, unknown>[] = [];
const traces: string[] = [];
let searchMainMs = 0;
let searchProcMs = 0;
let searchWallMs = 0;
for (;;) {
  round = fresh();
  phaseStats = new Map();
  roundNumber = rows.length + 1;
  const m0 = threadCpuMs();
  const p0 = processCpuMs();
  const w0 = performance.now();
  const batch = await strategy.generateMeasureCandidates(ctx);
  const mainMs = threadCpuMs() - m0;
  const procMs = processCpuMs() - p0;
  const wallMs = performance.now() - w0;
  if (batch === undefined) break;
  const results = measureWithStandIn(database, func, H100, batch);
  for (const c of batch) traces.push(JSON.stringify(c.sch.trace.toJSON()));
  costModel.update(ctx, batch, results);
  strategy.notifyRunnerResults(ctx, batch, results);
  const replays = round.batches.reduce((a, b) => a + b, 0);
  searchMainMs += mainMs;
  searchProcMs += procMs;
  searchWallMs += wallMs;
  rows.push({
    round: rows.length + 1,
    wallS: +(wallMs / 1000).toFixed(1),
    processCpuS: +(procMs / 1000).toFixed(1),
    mainCpuS: +(mainMs / 1000).toFixed(2),
    mainReplayS: +(round.replayMainMs / 1000).toFixed(2),
    mainPredictS: +(round.predictMs / 1000).toFixed(2),
    mainOtherS: +((mainMs - round.replayMainMs - round.predictMs) / 1000).toFixed(2),
    trainS: +(round.trainMs / 1000).toFixed(2),
    replays,
    cacheHits: round.cacheHits,
    replayed: round.replayed,
    repeatedTrace: round.repeatedTrace,
    repeatedProgram: round.repeatedProgram,
    barriers: round.batches.length,
    batchSizes: round.batches.join(" "),
    ...Object.fromEntries(modelWorkers.map((w) => [`replaySlotsAt${w}`, round.batches.reduce((a, n) => a + Math.ceil(n / w), 0)])),
    ...Object.fromEntries(modelWorkers.map((w) => [`perfectSlotsAt${w}`, +(replays / w).toFixed(1)])),
    ...(values.phases ? { phases: Object.fromEntries(phaseStats) } : {}),
  });
}
await pool?.dispose();
for (const r of rows) console.log(JSON.stringify(r));
console.log(
  JSON.stringify({
    workers,
    overlap: values.overlap,
    workersStarted: pool?.workersStarted ?? 0,
    searchWallS: +(searchWallMs / 1000).toFixed(1),
    searchMainCpuS: +(searchMainMs / 1000).toFixed(1),
    searchProcessCpuS: +(searchProcMs / 1000).toFixed(1),
    tracesDigest: createHash("sha256").update(traces.join("\n")).digest("hex").slice(0, 12),
    // VerifyGPUCode in this thread (with --workers, the workers' own are not counted): programs
    // lowered, of them rejected (the GPU limits), and verdicts its memo gave.
    lowered: verdictMemoCounts.lowered,
    loweredRejected: verdictMemoCounts.loweredRejected,
    verdictsRemembered: verdictMemoCounts.remembered,
  }),
);

/**
 * `tsx --conditions=@tessera/source packages/meta-schedule/bench/round-wall.bench.ts [--workers 15] [--population 256] [--seed 1] [--batches FILE] [--message-ms 1] [--times-out FILE | --times FILE]`
 *
 * What one round of the search would take on `--workers` replay workers, projected from CPU measured
 * here: gemm+ReLU+add 2048³ in the default CUDA space, one round of an evolutionary search at
 * population 256 (the analytic model; what a 256-trial run's first round replays). The round's
 * replay batches (each `replayUncached` call: the fresh samples, each wave of a generation, each
 * climb step) are recorded in order into FILE (default: the OS's temp folder); later runs read them
 * back. Then every batch is replayed in order in this thread, twice, each replay's CPU read (after
 * an untimed pass that warms V8):
 *
 * - "one thread": one prefix-state cache for all (what replay-phases.bench.ts times);
 * - "split": each chunk of a batch (a third of a worker's share, the pool's cut before session 18)
 *   replayed with the prefix states of worker `chunk mod workers` — a worker only resumes from
 *   states of the replays it served itself.
 *
 * The projection of a batch's wall: its replays cut into chunks (equal ones, N a worker, or the
 * pool's guided cut, replay-chunks.ts), each chunk `--message-ms` more, list-scheduled onto the
 * workers in order (the next chunk to the first free one, as the task pool hands them out), summed
 * over the batches: no other threads, the search's own work between batches not counted.
 * `--times-out` writes the split pass's CPU per replay; `--times` reads such a file and only projects.
 * VerifyGPUCode's verdict memo is one per process here (each worker has its own).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type CudaTarget, target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { AnalyticModel, EvolutionarySearch, MemoryDatabase } from "../src/index.js";
import { clearVerdictMemo } from "../src/postproc/verify-gpu-code.js";
import { CandidateReplayer } from "../src/search/candidate-replayer.js";
import { type ReplayRequest, runReplayJob } from "../src/search/replay-job.js";
import { guidedChunks } from "../src/search/replay-chunks.js";
import { defaultCudaSpaceGenerator } from "../src/space/defaults.js";
import { type PrefixStateCache, resetThreadPrefixStates } from "../src/space/prefix-states.js";
import { tuneContext } from "../src/tune-context.js";
import { workloadOf } from "../src/workload.js";
import { measureWithStandIn } from "./stand-in-latency.js";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "15" },
    population: { type: "string", default: "256" },
    seed: { type: "string", default: "1" },
    batches: { type: "string" },
    "message-ms": { type: "string", default: "1" },
    "times-out": { type: "string" },
    times: { type: "string" },
  },
});
for (const key of ["workers", "population", "seed"] as const) {
  const v = Number(values[key]);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`round-wall: --${key} must be an integer ≥ 1, got ${JSON.stringify(values[key])}`);
    process.exit(2);
  }
}
const workers = Number(values.workers);
/** What a chunk's message costs beyond its replays (a job's structured clone, the reply's, the worker's set-up). */
const messageMs = Number(values["message-ms"]);
const population = Number(values.population);
const seed = Number(values.seed);
const file = values.batches ?? join(tmpdir(), `replay-batches-p${population}-s${seed}.json`);
const H100 = target("nvidia/h100") as CudaTarget;
const func = gemmReluAdd(2048).func;

/** One round of the search, its replay batches recorded in order. */
async function recordBatches(): Promise<ReplayRequest[][]> {
  const batches: ReplayRequest[][] = [];
  type Plan = { freshDecisions: boolean; seed: number };
  const proto = CandidateReplayer.prototype as unknown as { replayUncached: (plans: Plan[], texts: string[]) => Promise<unknown[]> };
  const replayUncached = proto.replayUncached;
  proto.replayUncached = function (this: CandidateReplayer, plans: Plan[], texts: string[]) {
    if (plans.length > 0) batches.push(plans.map((p, k) => ({ trace: texts[k]!, freshDecisions: p.freshDecisions, seed: p.seed })));
    return replayUncached.call(this, plans, texts);
  };
  const ctx = tuneContext(workloadOf(func), H100, { seed });
  const space = defaultCudaSpaceGenerator(H100);
  space.initialize?.(ctx);
  const database = new MemoryDatabase();
  const strategy = new EvolutionarySearch({ populationSize: population });
  strategy.preTuning(ctx, {
    maxTrials: 32,
    numTrialsPerIter: 32,
    designSpaces: space.generateDesignSpace(ctx),
    space,
    database,
    costModel: new AnalyticModel(),
  });
  const batch = await strategy.generateMeasureCandidates(ctx);
  if (batch !== undefined) measureWithStandIn(database, func, H100, batch);
  proto.replayUncached = replayUncached;
  return batches;
}

if (values.times !== undefined) {
  const replayMs = JSON.parse(readFileSync(values.times, "utf8")) as number[][];
  console.log(JSON.stringify(summary(`projected from ${values.times}`, { replayMs, replays: replayMs.flat().length, hits: 0, skipped: 0 })));
  process.exit(0);
}
if (!existsSync(file)) {
  writeFileSync(file, JSON.stringify(await recordBatches()));
  console.error(`recorded the round's replay batches into ${file}`);
}
const batches = JSON.parse(readFileSync(file, "utf8")) as ReplayRequest[][];

/** How a batch of `n` is cut: `perWorker` equal chunks a worker (ReplayPool's cut before session 18: 3), or `"guided"` (replay-chunks.ts, the pool's). */
type Cut = number | "guided";

function chunksOf(n: number, cut: Cut): [number, number][] {
  if (cut === "guided") return guidedChunks(n, workers);
  const size = Math.max(1, Math.ceil(n / (workers * cut)));
  const out: [number, number][] = [];
  for (let start = 0; start < n; start += size) out.push([start, Math.min(start + size, n)]);
  return out;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const workload = workloadOf(func);

interface Pass {
  /** CPU ms of each replay of each batch. */
  readonly replayMs: number[][];
  readonly hits: number;
  readonly skipped: number;
  readonly replays: number;
}

/** Every batch replayed request by request, those of chunk `c` (ReplayPool's chunks) with the prefix states `cacheOf(c)`. */
function replayPass(cacheOf: (chunk: number) => PrefixStateCache): Pass {
  clearVerdictMemo();
  const replayMs: number[][] = [];
  const used = new Set<PrefixStateCache>();
  let replays = 0;
  for (const batch of batches) {
    const times: number[] = [];
    chunksOf(batch.length, 3).forEach(([from, to], c) => {
      const cache = cacheOf(c);
      used.add(cache);
      for (const request of batch.slice(from, to)) {
        const c0 = cpuMs();
        runReplayJob({ workload, target: H100, postprocs: "cuda-default", requests: [request] }, true, cache);
        times.push(cpuMs() - c0);
      }
      replays += to - from;
    });
    replayMs.push(times);
  }
  const caches = [...used];
  return { replayMs, replays, hits: caches.reduce((a, c) => a + c.hits, 0), skipped: caches.reduce((a, c) => a + c.instructionsSkipped, 0) };
}

/** The wall of a batch whose chunks (cut by `cut`, each `messageMs` more) go in order to the first free of `workers`. */
function makespan(replayMs: readonly number[], cut: Cut): number {
  const free = new Array<number>(workers).fill(0);
  for (const [from, to] of chunksOf(replayMs.length, cut)) {
    let k = 0;
    for (let w = 1; w < workers; w++) if (free[w]! < free[k]!) k = w;
    free[k]! += messageMs + replayMs.slice(from, to).reduce((a, b) => a + b, 0);
  }
  return Math.max(...free);
}

function summary(label: string, pass: Pass): Record<string, unknown> {
  const cpu = pass.replayMs.flat().reduce((a, b) => a + b, 0);
  const cuts: Cut[] = [1, 3, 6, 12, "guided"];
  const projected = Object.fromEntries(
    cuts.map((cut) => [
      typeof cut === "number" ? `equal${cut}` : cut,
      {
        wallS: +(pass.replayMs.reduce((a, b) => a + makespan(b, cut), 0) / 1000).toFixed(3),
        chunks: pass.replayMs.reduce((a, b) => a + chunksOf(b.length, cut).length, 0),
      },
    ]),
  );
  return {
    label,
    replays: pass.replays,
    cpuMsPerReplay: +(cpu / pass.replays).toFixed(2),
    prefixHits: pass.hits,
    instructionsSkippedPerReplay: +(pass.skipped / pass.replays).toFixed(1),
    roundCpuS: +(cpu / 1000).toFixed(2),
    idealWallS: +(cpu / workers / 1000).toFixed(3),
    projectedWallS: projected,
  };
}
const sizes = batches.map((b) => b.length);
console.log(
  JSON.stringify({
    batches: batches.length,
    replays: sizes.reduce((a, b) => a + b, 0),
    batchSizes: sizes.join(" "),
    batchesBelowWorkers: sizes.filter((n) => n < workers).length,
  }),
);
const one = resetThreadPrefixStates();
replayPass(() => one); // warm-up: V8 compiles the compiler
const shared = resetThreadPrefixStates();
console.log(
  JSON.stringify(
    summary(
      "one thread",
      replayPass(() => shared),
    ),
  ),
);
const own = Array.from({ length: workers }, () => resetThreadPrefixStates());
const split = replayPass((c) => own[c % workers]!);
console.log(JSON.stringify(summary(`split over ${workers}`, split)));
if (values["times-out"] !== undefined) writeFileSync(values["times-out"], JSON.stringify(split.replayMs));

/**
 * `pnpm bench:tune`: the meta-schedule benchmark.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/tune.bench.ts
 *       [--dry-run] [--only gemm_relu_add_2048,matmul_1024,…] [--trials N] [--gemm-trials N]
 *       [--course-trials N] [--per-iter N] [--seeds 1,2,3] [--no-course] [--no-workloads] [--out-dir DIR] [--stem NAME]
 *       [--learned-features kernel-summary|per-store] [--workers N] [--overlap] [--last-batch-sees-first] [--cold-workers]
 *   … --gpus 0,1 [--trials N] [--seed N]: one seed tuned on one GPU, then on all listed (apps/cli/bench/tune-gpus.bench.ts)
 *
 * Three parts, one report (docs/benchmarks/tuning.{json,md} and SVG/PNG curves beside them):
 * 1. Search-side speed on this machine: replaying the course's manual schedule at 2048³ from its
 *    trace, lowering + CUDA generation of the fast schedule, and one sample of the automatic design
 *    space at 2048³ (fresh decisions, postprocessors included), with the fraction that is valid.
 * 2. Tuning each workload with the automatic space and the evolutionary search: best latency,
 *    trials to reach it, wall time; on a GPU, the ratio to torch (cuBLAS / cuDNN, TF32 off) timed in
 *    the same run — gemm+ReLU+add against cuBLAS SGEMM alone (`A @ B`). On the GPU every
 *    candidate's outputs must agree with the first measured candidate's (rtol = atol = 1e-4), or
 *    its trial counts as failed.
 * 3. The course's search space (`courseSearchSpace` of @tessera/corpus, the one the instructor solution defines): evolutionary search against
 *    random sampling (replay-trace) at equal trials, for several seeds, as curves.
 *
 * `--dry-run` needs no GPU: the simulated runner's latencies are estimates of a model, not
 * measurements, and the report says so.
 *
 * The search workers (`--workers`) are one pool for the whole bench, started and warmed on the
 * first workload's design space (warmReplayPool) before the search-side speed and the torch
 * baselines are measured, so that no run's first round waits on threads started cold;
 * `--cold-workers` leaves them to start when a search first needs them (as tuneTIR's own pool).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
// Types only here: the compiler's modules load at the end of this file, once the command line is
// known to be good (they are most of a start's CPU; a mistake is refused without them).
import type { CudaTarget } from "@tessera/codegen";
import type { CudaMutatorProbabilities } from "../src/space/defaults.js";
import type { ReplayPool as ReplayPoolType } from "../src/search/replay-pool.js";
import { median, timeMs } from "../../ir/bench/bench-util.js";
import type { GemmKnobs } from "./fast-region.js";
import type { TorchBaseline } from "./torch-baselines.js";
import type { BenchWorkload } from "./workloads.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Mode {
  readonly dryRun: boolean;
  readonly only: readonly string[];
  readonly trials: number;
  readonly gemmTrials: number;
  readonly courseTrials: number;
  /** Candidates measured per search round (TVM: 64; smaller lets the cost model learn sooner on short budgets). */
  readonly perIter: number;
  readonly seeds: readonly number[];
  /** What the hybrid cost model's forest learns on: kernel-summary rows (the default) or TVM's per-store rows (the earlier default, for comparisons). */
  readonly learnedFeatures: LearnedFeatures;
  /** The evolutionary search's neighbourShare and populationSize, when not their defaults (for comparisons on the GPU). */
  readonly neighbourShare: number | undefined;
  readonly population: number | undefined;
  /** The evolutionary search's freshPoolSize (`--fresh-pool N`), when not its default. */
  readonly freshPool: number | undefined;
  /** The evolutionary search's firstRoundIslands (`--islands N`), when not its default. */
  readonly islands: number | undefined;
  /** The evolutionary search's climbSteps (`--climb-steps N`; 0: no climbs), when not its default. */
  readonly climbSteps: number | undefined;
  /** `--polish-trials N`: the evolutionary search's polishTrials (the last N trials a batch of the best measured programs' neighbours). */
  readonly polishTrials: number | undefined;
  /** The automatic space's mutator weights that differ from the defaults (`--mutator-weights gemmKnob=0.5,…`), for comparisons on the GPU. */
  readonly mutatorWeights: Partial<CudaMutatorProbabilities> | undefined;
  /** Search worker threads (`--workers`, default the cores less one; 0: the search replays in its own thread). */
  readonly searchWorkers: number;
  /** `--overlap`: search each batch while the one before is built and measured. */
  readonly overlap: boolean;
  /** `--last-batch-sees-first`: with `--overlap`, a two-batch run's second batch waits for the first's measurements (TuneOptions.lastBatchSeesFirst). */
  readonly lastBatchSeesFirst: boolean;
  /** Whether the search workers are started and warmed before the measurements (not `--cold-workers`). */
  readonly warmWorkers: boolean;
  readonly course: boolean;
  readonly workloads: boolean;
  readonly outDir: string;
  /** File name stem of the report (default tuning, or tuning-dry-run). */
  readonly stem: string | undefined;
}

const USAGE =
  "usage: bench:tune [--dry-run] [--only W1,W2] [--trials N] [--gemm-trials N] [--course-trials N] [--per-iter N] [--seeds 1,2,3] [--no-course] [--no-workloads] [--out-dir DIR] [--stem NAME] [--learned-features kernel-summary|per-store] [--neighbour-share X] [--population N] [--fresh-pool N] [--islands N] [--climb-steps N] [--polish-trials N] [--mutator-weights NAME=W,…] [--workers N] [--overlap] [--last-batch-sees-first] [--cold-workers]";

/** A mistake on the command line: printed with the usage, no stack trace. */
class UsageError extends Error {}

/** What the command line is checked against that lives in the compiler's modules. */
interface Catalogue {
  readonly workloadNames: readonly string[];
  readonly mutatorNames: readonly string[];
  readonly defaultSearchWorkers: number;
}

/**
 * The command line as a Mode; a UsageError names what is wrong. Without a catalogue (before the
 * compiler's modules load) it checks all that needs none of them, and its Mode is not to be used.
 */
function parseMode(catalogue: Catalogue | undefined): Mode {
  try {
    return checkedMode(parseOptions().values, catalogue);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

function parseOptions() {
  return parseArgs({
    options: {
      "dry-run": { type: "boolean", default: false },
      only: { type: "string" },
      trials: { type: "string", default: "64" },
      "gemm-trials": { type: "string", default: "256" },
      "course-trials": { type: "string", default: "64" },
      "per-iter": { type: "string", default: "32" },
      seeds: { type: "string", default: "1,2,3" },
      "no-course": { type: "boolean", default: false },
      "no-workloads": { type: "boolean", default: false },
      "out-dir": { type: "string", default: join(repoRoot, "docs", "benchmarks") },
      stem: { type: "string" },
      "learned-features": { type: "string", default: "kernel-summary" },
      "neighbour-share": { type: "string" },
      population: { type: "string" },
      "fresh-pool": { type: "string" },
      islands: { type: "string" },
      "climb-steps": { type: "string" },
      "polish-trials": { type: "string" },
      "mutator-weights": { type: "string" },
      workers: { type: "string" },
      overlap: { type: "boolean", default: false },
      "last-batch-sees-first": { type: "boolean", default: false },
      "cold-workers": { type: "boolean", default: false },
    },
  });
}

function checkedMode(values: ReturnType<typeof parseOptions>["values"], catalogue: Catalogue | undefined): Mode {
  const int = (name: string, text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`--${name} must be a positive integer, got "${text}"`);
    return n;
  };
  const only = values.only === undefined ? [] : values.only.split(",").filter((s) => s.length > 0);
  for (const name of only)
    if (catalogue !== undefined && !catalogue.workloadNames.includes(name))
      throw new RangeError(`--only: unknown workload "${name}"; known: ${catalogue.workloadNames.join(", ")}`);
  const perIter = int("per-iter", values["per-iter"]!);
  const polishTrials = values["polish-trials"] === undefined ? undefined : int("polish-trials", values["polish-trials"]);
  if (polishTrials !== undefined && polishTrials > perIter)
    throw new RangeError(`--polish-trials (${polishTrials}) must be at most --per-iter (${perIter}): the polish is one batch`);
  if (values["last-batch-sees-first"] === true && values.overlap !== true)
    throw new RangeError("--last-batch-sees-first needs --overlap (without it every batch is searched after the one before is measured)");
  return {
    dryRun: values["dry-run"] === true,
    only,
    trials: int("trials", values.trials!),
    gemmTrials: int("gemm-trials", values["gemm-trials"]!),
    courseTrials: int("course-trials", values["course-trials"]!),
    perIter,
    seeds: values.seeds!.split(",").map((s) => int("seeds", s)),
    course: values["no-course"] !== true,
    workloads: values["no-workloads"] !== true,
    outDir: values["out-dir"]!,
    stem: values.stem,
    learnedFeatures: learnedFeaturesOf(values["learned-features"]!),
    neighbourShare: values["neighbour-share"] === undefined ? undefined : shareOf(values["neighbour-share"]),
    population: values.population === undefined ? undefined : int("population", values.population),
    freshPool: values["fresh-pool"] === undefined ? undefined : int("fresh-pool", values["fresh-pool"]),
    islands: values.islands === undefined ? undefined : int("islands", values.islands),
    climbSteps: values["climb-steps"] === undefined ? undefined : climbStepsOf(values["climb-steps"]),
    polishTrials,
    mutatorWeights:
      values["mutator-weights"] === undefined || catalogue === undefined ? undefined : mutatorWeightsOf(values["mutator-weights"], catalogue.mutatorNames),
    searchWorkers: values.workers === undefined ? (catalogue?.defaultSearchWorkers ?? 0) : workersOf(values.workers),
    overlap: values.overlap === true,
    lastBatchSeesFirst: values["last-batch-sees-first"] === true,
    warmWorkers: values["cold-workers"] !== true,
  };
}

function climbStepsOf(text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < 0)
    throw new RangeError(`--climb-steps must be a non-negative integer (0: no hill climbs), got "${text}"`);
  return n;
}

function workersOf(text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < 0)
    throw new RangeError(`--workers must be a non-negative integer (0: no search worker threads), got "${text}"`);
  return n;
}

/** Whether the command line sets any of the evolutionary search's settings. */
function searchSettingsGiven(mode: Mode): boolean {
  return (
    mode.neighbourShare !== undefined ||
    mode.population !== undefined ||
    mode.freshPool !== undefined ||
    mode.islands !== undefined ||
    mode.climbSteps !== undefined ||
    mode.polishTrials !== undefined
  );
}

/** The evolutionary search with the command line's settings; the name (defaults) when it sets none. */
function evolutionaryStrategy(mode: Mode): "evolutionary" | (() => InstanceType<typeof EvolutionarySearch>) {
  if (!searchSettingsGiven(mode)) return "evolutionary";
  return () =>
    new EvolutionarySearch({
      ...(mode.polishTrials === undefined ? {} : { polishTrials: mode.polishTrials }),
      ...(mode.neighbourShare === undefined ? {} : { neighbourShare: mode.neighbourShare }),
      ...(mode.population === undefined ? {} : { populationSize: mode.population }),
      ...(mode.freshPool === undefined ? {} : { freshPoolSize: mode.freshPool }),
      ...(mode.islands === undefined ? {} : { firstRoundIslands: mode.islands }),
      ...(mode.climbSteps === undefined ? {} : { climbSteps: mode.climbSteps }),
    });
}

/** `tileSize=0.9,gemmKnob=0.5`: weights by the names of `DEFAULT_CUDA_MUTATOR_PROBABILITIES`. */
function mutatorWeightsOf(text: string, names: readonly string[]): Partial<CudaMutatorProbabilities> {
  const out: Record<string, number> = {};
  for (const part of text.split(",")) {
    const [name, value] = part.split("=");
    const weight = Number(value);
    if (name === undefined || !names.includes(name) || value === undefined || value.trim() === "" || !(Number.isFinite(weight) && weight >= 0)) {
      throw new RangeError(`--mutator-weights: "${part}" is not NAME=WEIGHT with a weight ≥ 0 and NAME one of ${names.join(", ")}`);
    }
    out[name] = weight;
  }
  return out;
}

function shareOf(text: string): number {
  const x = Number(text);
  if (text.trim() === "" || !(x >= 0 && x <= 1)) throw new RangeError(`--neighbour-share must be a number in [0, 1], got "${text}"`);
  return x;
}

const LEARNED_FEATURES = ["kernel-summary", "per-store"] as const;
type LearnedFeatures = (typeof LEARNED_FEATURES)[number];

function learnedFeaturesOf(text: string): LearnedFeatures {
  const known = LEARNED_FEATURES.find((f) => f === text);
  if (known === undefined) throw new RangeError(`--learned-features must be one of ${LEARNED_FEATURES.join(", ")}, got "${text}"`);
  return known;
}

function timed(f: () => void, warmup: number, runs: number): { medianMs: number; minMs: number } {
  for (let k = 0; k < warmup; k++) f();
  const times = Array.from({ length: runs }, () => timeMs(f));
  return { medianMs: median(times), minMs: Math.min(...times) };
}

interface SearchSpeed {
  readonly traceReplayManual: { medianMs: number; minMs: number };
  readonly traceReplayFast: { medianMs: number; minMs: number };
  readonly lowerCodegenFast: { medianMs: number; minMs: number };
  readonly autoSpaceSample: { medianMs: number; samples: number; valid: number; rejections: Record<string, number> };
}

/** Part 1: what one candidate costs on the search side. */
function searchSpeed(tgt: CudaTarget): SearchSpeed {
  const workload = gemmReluAdd(2048).func;
  const replayOf = (sch: InstanceType<typeof Schedule>) => {
    const json = JSON.stringify(sch.trace.toJSON());
    return () => Trace.fromJSON(json).applyTo(new Schedule(workload));
  };
  const traceReplayManual = timed(replayOf(manualSchedule(2048)), 10, 20);
  const traceReplayFast = timed(replayOf(fastSchedule(2048)), 10, 20);
  const fast = fastSchedule(2048);
  const lowerCodegenFast = timed(() => codegenCuda(lower(fast, tgt)), 15, 20);

  const ctx = tuneContext(workloadOf(workload), tgt, { seed: 7 });
  const space = defaultCudaSpaceGenerator(tgt);
  space.initialize?.(ctx);
  const designs = space.generateDesignSpace(ctx);
  const times: number[] = [];
  const rejections: Record<string, number> = {};
  let valid = 0;
  const samples = 60;
  for (let k = 0; k < samples + 5; k++) {
    const design = designs[k % designs.length]!;
    let ok = false;
    const ms = timeMs(() => {
      const out = replayWithPostprocs(ctx, design.trace, space.postprocs, { freshDecisions: true, seed: 1000 + k });
      ok = out.ok;
      if (!out.ok && k >= 5) rejections[out.reason] = (rejections[out.reason] ?? 0) + 1;
    });
    if (k < 5) continue; // warm-up
    times.push(ms);
    if (ok) valid++;
  }
  return { traceReplayManual, traceReplayFast, lowerCodegenFast, autoSpaceSample: { medianMs: median(times), samples, valid, rejections } };
}

export interface TuningRow {
  readonly workload: string;
  readonly strategy: string;
  readonly seed: number;
  readonly trials: number;
  readonly wallSeconds: number;
  readonly bestMs: number | undefined;
  readonly bestTrial: number | undefined;
  /** Best-so-far ms after each trial (undefined before the first success). */
  readonly curveMs: readonly (number | undefined)[];
  readonly failedTrials: number;
  /** Why trials failed: each distinct reason (its first line) and how many trials gave it. */
  readonly failures: Readonly<Record<string, number>>;
  readonly gflops: number | undefined;
  /** Where the wall time went: "search 12.1 s, build 8.0 s, run 10.2 s". */
  readonly phases: string;
  /** On a GPU: milliseconds per measured candidate, by step of the runner (load, upload, check, timing, transfer, verify). */
  readonly measuringMsPerCandidate?: Readonly<Record<string, number>>;
  /** Every measured program, fastest first, with the kernel knobs read from its CUDA. */
  readonly top: readonly TopRecord[];
  /** The best program's max |error| against float64 beside SGEMM's, for workloads with float64Check (GPU runs). */
  readonly float64Errors?: import("./float64-error.js").Float64Errors | { readonly skipped: string };
}

/** One of the fastest records of a tuning run: what kernel it is, so that runs can be compared. */
export interface TopRecord {
  readonly ms: number;
  readonly knobs: GemmKnobs | undefined;
  /** The record's sampled decisions in trace order (what the search chose; replays with the design space). */
  readonly decisions: readonly unknown[];
  /** Why the knobs could not be read (the record no longer replays or lowers). */
  readonly error?: string;
}

/** "44% (no batch in flight 12%)": the search's wall and its part with no batch in flight, over the run's wall, read from the last batch line's phases. */
export function searchShareOf(row: Pick<TuningRow, "phases" | "wallSeconds">): string | undefined {
  const m = /^search (\d+(?:\.\d+)?) s \(its thread busy \d+(?:\.\d+)? s, no batch in flight (\d+(?:\.\d+)?) s\)/.exec(row.phases);
  if (m === null || !(row.wallSeconds > 0)) return undefined;
  const pct = (s: string) => `${((100 * Number(s)) / row.wallSeconds).toFixed(0)}%`;
  return `${pct(m[1]!)} (no batch in flight ${pct(m[2]!)})`;
}

/** Failed trials whose log line a run prints (the report tallies them all). */
const FAILED_TRIALS_SHOWN = 5;

function failureTally(history: Awaited<ReturnType<typeof tuneTIR>>["history"]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const t of history) {
    if (t.ok) continue;
    const reason = (t.error ?? "unknown").split("\n")[0]!.slice(0, 300);
    tally[reason] = (tally[reason] ?? 0) + 1;
  }
  return tally;
}

/** Rows of the report's table of the fastest programs. */
const TOP_RECORDS_SHOWN = 6;

/** The database's records of `func`, fastest first, each replayed, lowered and described. */
function topRecordsOf(result: Awaited<ReturnType<typeof tuneTIR>>, func: Parameters<typeof tuneTIR>[0], tgt: CudaTarget): TopRecord[] {
  if (func.kind !== "PrimFunc" || !result.database.hasWorkload(func)) return [];
  const records = result.database.getTopK(result.database.commitWorkload(func), result.history.length);
  return records.map((record) => {
    const secs = record.runSecs ?? [];
    const ms = (secs.reduce((a, b) => a + b, 0) / Math.max(1, secs.length)) * 1e3;
    const decisions = record.trace.decisions.map(([, d]) => d);
    try {
      return { ms, decisions, knobs: gemmKnobsOf(lower(scheduleFromRecord(record, func).func, tgt)) };
    } catch (err) {
      return { ms, decisions, knobs: undefined, error: err instanceof Error ? err.message : String(err) };
    }
  });
}

async function tuneOne(
  name: string,
  func: Parameters<typeof tuneTIR>[0],
  tgt: CudaTarget,
  mode: Mode,
  opts: {
    trials: number;
    seed: number;
    strategy: "evolutionary" | "replay-trace";
    space: "auto" | typeof courseSearchSpace;
    flop: number;
    /** Whether to report the best program's error against float64 beside SGEMM's (a BenchWorkload's float64Check; GPU runs only). */
    float64Check?: boolean;
  },
  pool: ReplayPoolType | undefined,
): Promise<TuningRow> {
  const workDir = join(os.tmpdir(), "tessera-bench-tune", `${name}-${opts.strategy}-${opts.seed}-${Date.now()}`);
  const started = performance.now();
  let lastLine = 0;
  let phases = "";
  let failedShown = 0;
  // Every candidate's outputs are compared with the first measured candidate's: schedules of one
  // workload must agree, so a wrong kernel shows up as a failed trial instead of a fast time.
  const runner = mode.dryRun ? undefined : new LocalRunner({ checker: firstResultChecker(), batch: true });
  const result = await tuneTIR(func, tgt, {
    logger: (level, message) => {
      if (message.includes("batch of")) phases = message.replace(/^.*time so far in /, "");
      // Trial lines are left out, but for the first failures: a run whose trials all fail says why.
      const failedTrial = message.includes("Trial #") && message.includes(": Error in ") && failedShown++ < FAILED_TRIALS_SHOWN;
      if (failedTrial || (level !== "debug" && !message.includes("Trial #") && !message.startsWith("\n"))) console.log(`    ${message}`);
    },
    workDir,
    maxTrialsGlobal: opts.trials,
    numTrialsPerIter: Math.min(mode.perIter, opts.trials),
    space:
      opts.space === "auto" && mode.mutatorWeights !== undefined ? defaultCudaSpaceGenerator(tgt, { mutatorProbabilities: mode.mutatorWeights }) : opts.space,
    strategy: opts.strategy === "evolutionary" ? evolutionaryStrategy(mode) : opts.strategy,
    // The default cost model (hybrid, kernel-summary forest), or the earlier default for comparisons.
    ...(mode.learnedFeatures === "per-store" ? { costModel: new HybridModel({ learned: new ForestModel() }) } : {}),
    runner: runner ?? "simulated",
    database: "json",
    seed: opts.seed,
    ...(pool === undefined ? { searchWorkers: mode.searchWorkers } : { searchPool: pool }),
    overlapSearch: mode.overlap,
    lastBatchSeesFirst: mode.lastBatchSeesFirst,
    writeCurve: false,
    logSummary: false,
    onProgress: (p) => {
      const now = performance.now();
      if (now - lastLine > 5000 || p.trialsDone === p.maxTrialsGlobal) {
        lastLine = now;
        const best = p.trial.totalBestSecs < FAILED_RUN_SECS ? `${(p.trial.totalBestSecs * 1e3).toFixed(4)} ms` : "none yet";
        console.log(
          `  ${name} [${opts.strategy}, seed ${opts.seed}] trial ${p.trialsDone}/${p.maxTrialsGlobal}: best ${best} (${((now - started) / 1000).toFixed(1)} s)`,
        );
      }
    },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const bests = result.history.map((t) => t.totalBestSecs);
  const curveMs = bests.map((b) => (b < FAILED_RUN_SECS ? b * 1e3 : undefined));
  const best = Math.min(...bests, FAILED_RUN_SECS);
  const bestMs = best < FAILED_RUN_SECS ? best * 1e3 : undefined;
  const bestTrial = bestMs === undefined ? undefined : result.history.findIndex((t) => t.ok && t.latencySecs === best) + 1;
  return {
    workload: name,
    strategy: opts.strategy,
    seed: opts.seed,
    trials: result.history.length,
    wallSeconds,
    bestMs,
    bestTrial,
    curveMs,
    failedTrials: result.history.filter((t) => !t.ok).length,
    failures: failureTally(result.history),
    gflops: bestMs === undefined ? undefined : opts.flop / (bestMs * 1e-3) / 1e9,
    phases,
    ...(runner === undefined ? {} : { measuringMsPerCandidate: perCandidate(runner.timeSpent) }),
    top: topRecordsOf(result, func, tgt),
    ...(opts.float64Check === true && runner !== undefined ? { float64Errors: await bestFloat64Errors(result, func, opts.seed) } : {}),
  };
}

/** "max |error| against float64: ours 1.2e-5, SGEMM 1.5e-5 (ours 0.80× SGEMM's)", or why it was not measured. */
export function float64ErrorsText(e: NonNullable<TuningRow["float64Errors"]>): string {
  if ("skipped" in e) return `max |error| against float64 not measured: ${e.skipped}`;
  return `max |error| against float64: ours ${e.ours.toExponential(2)}, SGEMM ${e.sgemm.toExponential(2)} (ours ${(e.ours / e.sgemm).toFixed(2)}× SGEMM's; ${e.device})`;
}

/** The run's best record built and run once more, its error against float64 beside SGEMM's (float64-error.ts). */
async function bestFloat64Errors(
  result: Awaited<ReturnType<typeof tuneTIR>>,
  func: Parameters<typeof tuneTIR>[0],
  seed: number,
): Promise<TuningRow["float64Errors"]> {
  if (func.kind !== "PrimFunc" || !result.database.hasWorkload(func)) return { skipped: "no record of the workload" };
  const [best] = result.database.getTopK(result.database.commitWorkload(func), 1);
  if (best === undefined) return { skipped: "no measured record" };
  const { gemmReluAddFloat64Errors } = await import("./float64-error.js");
  try {
    return await gemmReluAddFloat64Errors(scheduleFromRecord(best, func), seed);
  } catch (err) {
    return { skipped: `the best record did not build or run: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The runner's steps per candidate, with (inside timing) the GPU's time and the runs: the reports' `measuringMsPerCandidate`. */
function perCandidate(spent: InstanceType<typeof LocalRunner>["timeSpent"]): Record<string, number> {
  const n = Math.max(1, spent.candidates);
  const figures = { ...spent.stepsMs, timedOnGpu: spent.timedGpuMs, timedRuns: spent.timedRuns };
  return Object.fromEntries(Object.entries(figures).map(([step, value]) => [step, Number((value / n).toFixed(1))]));
}

/** The largest "name[size]" of a knobs' register arrays. */
function largestArray(local: string): string {
  const arrays = local.split(" ").filter((a) => a.length > 0);
  const size = (a: string) => Number(/\[(\d+)\]$/.exec(a)?.[1] ?? 0);
  return arrays.reduce((best, a) => (size(a) > size(best) ? a : best), arrays[0] ?? "—");
}

/** The measured programs grouped by launch shape and largest register array, fastest group first. */
function launchClasses(top: readonly TopRecord[]): { grid: string; block: string; local: string; count: number; bestMs: number; medianMs: number }[] {
  const groups = new Map<string, TopRecord[]>();
  for (const t of top) {
    if (t.knobs === undefined) continue;
    const key = `${t.knobs.grid}|${t.knobs.block}|${largestArray(t.knobs.local)}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.entries()]
    .map(([key, rows]) => {
      const [grid, block, local] = key.split("|") as [string, string, string];
      const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
      return { grid, block, local, count: rows.length, bestMs: ms[0]!, medianMs: median(ms) };
    })
    .sort((a, b) => a.bestMs - b.bestMs);
}

/** Trials until the best-so-far first reached `ms` (undefined if never). */
function trialsToReach(curve: readonly (number | undefined)[], ms: number): number | undefined {
  const k = curve.findIndex((c) => c !== undefined && c <= ms);
  return k < 0 ? undefined : k + 1;
}

function fmt(x: number | undefined, digits = 4): string {
  return x === undefined || !Number.isFinite(x) ? "—" : x.toFixed(digits);
}

/** The best's ratios to the baseline timed as bench:tc times it: sustained (like for like with ours) and in a burst. */
function likeForLikeText(r: { burstMs: number; sustainedMs: number; toBurst: number; toSustained: number }): string {
  return `${fmt(r.sustainedMs)} / ${fmt(r.burstMs)}: ${r.toSustained.toFixed(3)}× sustained, ${r.toBurst.toFixed(3)}× burst`;
}

async function main(mode: Mode): Promise<void> {
  const gpu = !mode.dryRun && cuda.available();
  if (!mode.dryRun && !gpu) {
    console.error(`bench:tune: no GPU (${cuda.unavailableReason() ?? "CUDA unavailable"}); run with --dry-run to use the simulated runner`);
    process.exit(2);
  }
  const device = gpu ? cuda.device(0) : undefined;
  const tgt = gpu ? deviceTarget(device!) : resolveTarget("nvidia/h100");
  console.log(`bench:tune on ${gpu ? device!.name : "no GPU (--dry-run: simulated runner, estimated latencies)"}, target ${tgt.name} (${tgt.arch})`);

  const workloads: readonly BenchWorkload[] = mode.workloads ? BENCH_WORKLOADS.filter((w) => mode.only.length === 0 || mode.only.includes(w.name)) : [];
  // One pool for every run, warmed on the first workload while this thread measures the search
  // side and torch (the runs' first rounds then find warm workers); not awaited: what is left of
  // the warm-up when a run starts counts in that run's search time.
  const pool =
    mode.warmWorkers && mode.searchWorkers > 0 && workloads.length > 0
      ? new ReplayPool({ workers: mode.searchWorkers, callerShare: !mode.overlap, log: (level, message) => level !== "debug" && console.log(`    ${message}`) })
      : undefined;
  if (pool !== undefined) void warmReplayPool(pool, workloads[0]!.func(), tgt, defaultCudaSpaceGenerator(tgt));

  console.log("== search-side speed (this machine)");
  const speed = searchSpeed(tgt);
  console.log(`  trace replay, manual 2048³: ${fmt(speed.traceReplayManual.medianMs, 2)} ms median; fast: ${fmt(speed.traceReplayFast.medianMs, 2)} ms`);
  console.log(`  lower + codegen, fast 2048³: ${fmt(speed.lowerCodegenFast.medianMs, 2)} ms median`);
  console.log(
    `  automatic space sample (replay + postprocs): ${fmt(speed.autoSpaceSample.medianMs, 2)} ms median, ${speed.autoSpaceSample.valid}/${speed.autoSpaceSample.samples} valid`,
  );

  let torch: Awaited<ReturnType<typeof torchBaselines>> | undefined;
  if (gpu && workloads.length > 0) {
    console.log("== torch baselines");
    torch = await torchBaselines(workloads.map((w) => w.torch));
    if (!torch.ok) console.log(`  torch unavailable: ${torch.reason}`);
  }
  const baselineOf = (k: number): TorchBaseline | undefined => (torch?.ok === true ? torch.baselines[k] : undefined);

  console.log("== tuning with the automatic space");
  const tuned: TuningRow[] = [];
  for (const [k, w] of workloads.entries()) {
    const trials = w.name === "gemm_relu_add_2048" ? mode.gemmTrials : mode.trials;
    tuned.push(
      await tuneOne(
        w.name,
        w.func(),
        tgt,
        mode,
        { trials, seed: mode.seeds[0]!, strategy: "evolutionary", space: "auto", flop: w.flop, float64Check: w.float64Check === true },
        pool,
      ),
    );
    const b = baselineOf(k);
    const row = tuned.at(-1)!;
    console.log(
      `  ${w.name}: best ${fmt(row.bestMs)} ms in ${row.trials} trials (${row.wallSeconds.toFixed(1)} s)${b === undefined || row.bestMs === undefined ? "" : `, ${(row.bestMs / baselineMs(b)).toFixed(3)}× torch (${likeForLikeText(likeForLike(b, row.bestMs))})`}`,
    );
    if (row.float64Errors !== undefined) console.log(`  ${w.name}: ${float64ErrorsText(row.float64Errors)}`);
  }

  const course: TuningRow[] = [];
  if (mode.course) {
    console.log("== the course's search space: evolutionary search against random sampling");
    for (const seed of mode.seeds) {
      for (const strategy of ["evolutionary", "replay-trace"] as const) {
        course.push(
          await tuneOne(
            "course_space_2048",
            gemmReluAdd(2048).func,
            tgt,
            mode,
            {
              trials: mode.courseTrials,
              seed,
              strategy,
              space: courseSearchSpace,
              flop: 2 * 2048 ** 3,
            },
            pool,
          ),
        );
      }
    }
  }

  await pool?.dispose();
  await writeReport(mode, { gpu, device: device?.name, target: tgt, speed, workloads, tuned, course, torch });
}

interface ReportData {
  readonly gpu: boolean;
  readonly device: string | undefined;
  readonly target: CudaTarget;
  readonly speed: SearchSpeed;
  readonly workloads: readonly BenchWorkload[];
  readonly tuned: readonly TuningRow[];
  readonly course: readonly TuningRow[];
  readonly torch: Awaited<ReturnType<typeof torchBaselines>> | undefined;
}

async function writeReport(mode: Mode, data: ReportData): Promise<void> {
  mkdirSync(mode.outDir, { recursive: true });
  const stem = mode.stem ?? (mode.dryRun ? "tuning-dry-run" : "tuning");
  const date = new Date().toISOString();
  const baselines = data.torch?.ok === true ? data.torch.baselines : undefined;
  const lines: string[] = [
    `# Tuning benchmark${mode.dryRun ? " (dry run: simulated runner)" : ""}`,
    "",
    "Generated by `pnpm bench:tune" + (mode.dryRun ? " --dry-run" : "") + "` (packages/meta-schedule/bench/tune.bench.ts).",
    mode.dryRun
      ? "No GPU: latencies come from the simulated runner's analytic model. They are estimates, not measurements, and say nothing about speed on a GPU; the search-side timings are real. The default cost model's prior is the same analytic model, so a dry run also says little about search quality."
      : `Device: ${data.device ?? "?"}; torch ${data.torch?.ok === true ? `${data.torch.env.torch} (CUDA ${data.torch.env.cuda})` : "unavailable"}. Every ratio is to torch timed in the same run (TF32 off); gemm+ReLU+add is compared with cuBLAS SGEMM alone (\`A @ B\`).`,
    "",
    `- date: ${date}`,
    `- host: ${os.cpus()[0]?.model ?? "?"}, ${os.cpus().length} cores, Node ${process.version}; 1-minute load average at the end: ${os.loadavg()[0]!.toFixed(2)}`,
    `- target: ${data.target.name} (${data.target.arch})`,
    `- cost model: hybrid (analytic prior × forest on ${mode.learnedFeatures} features)`,
    `- search: ${mode.searchWorkers} worker thread(s)${mode.searchWorkers > 0 ? (mode.warmWorkers ? ", one pool warmed before the runs" : ", started cold by each run (--cold-workers)") : ""}${mode.overlap ? ", each batch searched while the one before is measured (--overlap)" : ""}${mode.lastBatchSeesFirst ? ", a two-batch run's second after the first is measured (--last-batch-sees-first)" : ""}`,
    ...(!searchSettingsGiven(mode)
      ? []
      : [
          `- evolutionary search: ${mode.neighbourShare === undefined ? "" : `neighbourShare ${mode.neighbourShare} `}${mode.population === undefined ? "" : `populationSize ${mode.population} `}${mode.freshPool === undefined ? "" : `freshPoolSize ${mode.freshPool} `}${mode.islands === undefined ? "" : `firstRoundIslands ${mode.islands} `}${mode.climbSteps === undefined ? "" : `climbSteps ${mode.climbSteps} `}${mode.polishTrials === undefined ? "" : `polishTrials ${mode.polishTrials}`}`,
        ]),
    ...(mode.mutatorWeights === undefined ? [] : [`- mutator weights (automatic space): ${JSON.stringify(mode.mutatorWeights)}`]),
    "",
    "## Search-side speed (this host)",
    "",
    "| step | median (ms) | min (ms) |",
    "|---|---:|---:|",
    `| replay the manual schedule's trace (2048³) | ${fmt(data.speed.traceReplayManual.medianMs, 2)} | ${fmt(data.speed.traceReplayManual.minMs, 2)} |`,
    `| replay the fast schedule's trace (2048³) | ${fmt(data.speed.traceReplayFast.medianMs, 2)} | ${fmt(data.speed.traceReplayFast.minMs, 2)} |`,
    `| lower + CUDA codegen of the fast schedule (2048³) | ${fmt(data.speed.lowerCodegenFast.medianMs, 2)} | ${fmt(data.speed.lowerCodegenFast.minMs, 2)} |`,
    `| one sample of the automatic space (fresh decisions + postprocessors, 2048³) | ${fmt(data.speed.autoSpaceSample.medianMs, 2)} | |`,
    "",
    `Valid samples of the automatic space: ${data.speed.autoSpaceSample.valid} of ${data.speed.autoSpaceSample.samples}.` +
      (Object.keys(data.speed.autoSpaceSample.rejections).length === 0
        ? ""
        : ` Rejections: ${Object.entries(data.speed.autoSpaceSample.rejections)
            .map(([r, n]) => `${n}× ${r}`)
            .join("; ")}.`),
    "",
  ];
  if (data.tuned.length > 0) {
    lines.push("## Automatic space, evolutionary search", "");
    lines.push(
      "| workload | trials | best (ms) | GFLOP/s | found at trial | wall (s) | where the time went | failed trials | torch (ms) | ratio | torch sustained / burst (ms): ratios | trials to ≤1.3× | trials to ≤1.1× |",
    );
    lines.push("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|");
    data.tuned.forEach((row, k) => {
      const b = baselines?.[k];
      const base = b === undefined ? undefined : baselineMs(b);
      const ratio = base === undefined || row.bestMs === undefined ? undefined : row.bestMs / base;
      lines.push(
        `| ${row.workload} | ${row.trials} | ${fmt(row.bestMs)} | ${fmt(row.gflops, 0)} | ${row.bestTrial ?? "—"} | ${row.wallSeconds.toFixed(1)} | ${row.phases} | ${row.failedTrials} | ${fmt(base)} | ${ratio === undefined ? "—" : `${ratio.toFixed(3)}×`} | ${b === undefined || row.bestMs === undefined ? "—" : likeForLikeText(likeForLike(b, row.bestMs))} | ${base === undefined ? "—" : (trialsToReach(row.curveMs, 1.3 * base) ?? "not reached")} | ${base === undefined ? "—" : (trialsToReach(row.curveMs, 1.1 * base) ?? "not reached")} |`,
      );
    });
    const shares = data.tuned.flatMap((row) => {
      const share = searchShareOf(row);
      return share === undefined ? [] : [`${row.workload} ${share}`];
    });
    if (shares.length > 0) {
      lines.push(
        "",
        `Search share — the search's wall (time in the strategy's generateMeasureCandidates, mostly waiting on its replay workers) over the run's wall, and of it the part with no batch being built or run, the only part that lengthens the run (with --overlap the rest overlaps the batch in flight): ${shares.join("; ")}.`,
      );
    }
    // The best after fewer trials, read from the same run's best-so-far curve (e.g. 64 of 256).
    const checkpoints = [64, 128].filter((n) => data.tuned.some((r) => r.trials > n));
    if (checkpoints.length > 0) {
      lines.push("", `Best-so-far after ${checkpoints.join(" and ")} trials (ms, and its ratio to torch):`, "");
      data.tuned.forEach((row, k) => {
        const b = baselines?.[k];
        const cells = checkpoints.map((n) => {
          const ms = row.curveMs[Math.min(n, row.curveMs.length) - 1];
          return `${n}: ${fmt(ms)}${b === undefined || ms === undefined ? "" : ` (${(ms / baselineMs(b)).toFixed(3)}×)`}`;
        });
        lines.push(`- ${row.workload}: ${cells.join("; ")}`);
      });
    }
    for (const row of data.tuned) {
      const steps = row.measuringMsPerCandidate;
      if (steps === undefined) continue;
      const { timedOnGpu, timedRuns, ...wall } = steps;
      const total = Object.values(wall).reduce((a, b) => a + b, 0);
      const parts = Object.entries(wall).map(([step, ms]) => `${step} ${ms.toFixed(1)}`);
      const gpu = timedOnGpu === undefined ? "" : ` Of the timing, ${timedOnGpu.toFixed(1)} ms on the GPU in ${(timedRuns ?? 0).toFixed(1)} runs.`;
      lines.push("", `Measuring ${row.workload} (seed ${row.seed}): ${total.toFixed(1)} ms per candidate (${parts.join(", ")}).${gpu}`);
    }
    for (const row of data.tuned.filter((r) => r.failedTrials > 0)) {
      lines.push("", `Why trials of ${row.workload} (seed ${row.seed}) failed:`, "");
      for (const [reason, count] of Object.entries(row.failures).sort((a, b) => b[1] - a[1])) lines.push(`- ${count}× ${reason}`);
    }
    for (const row of data.tuned.filter((r) => r.top.length > 0)) {
      lines.push("", `Fastest programs of ${row.workload} (seed ${row.seed}), with the kernel knobs read from their CUDA:`, "");
      lines.push(
        "| ms | grid | block | launch bounds | pipelined | shared | registers (local arrays) | float4 fetches |",
        "|---:|---|---|---|---|---|---|---|",
      );
      for (const t of row.top.slice(0, TOP_RECORDS_SHOWN)) {
        const k = t.knobs;
        lines.push(
          k === undefined
            ? `| ${fmt(t.ms)} | ${t.error ?? "?"} ||||||| `
            : `| ${fmt(t.ms)} | ${k.grid} | ${k.block} | ${k.launchBounds} | ${k.pipelined ? "yes" : "no"} | ${k.shared} | ${k.local} | ${k.float4Fetches || "—"} |`,
        );
      }
    }
    for (const row of data.tuned.filter((r) => r.top.length > 0)) {
      lines.push("", `What the search measured for ${row.workload} (seed ${row.seed}), by launch shape and largest register array (the accumulators):`, "");
      lines.push("| grid | block | largest register array | programs | best (ms) | median (ms) |", "|---|---|---|---:|---:|---:|");
      for (const c of launchClasses(row.top)) lines.push(`| ${c.grid} | ${c.block} | ${c.local} | ${c.count} | ${fmt(c.bestMs)} | ${fmt(c.medianMs)} |`);
    }
    const checked = data.tuned.filter((r) => r.float64Errors !== undefined);
    if (checked.length > 0) {
      lines.push(
        "",
        "Accuracy of the best program (run once more on seeded inputs; torch's float64 `relu(A @ B) + C` the reference, SGEMM's on the same inputs beside it):",
        "",
      );
      for (const row of checked) lines.push(`- ${row.workload} (seed ${row.seed}): ${float64ErrorsText(row.float64Errors!)}`);
    }
    if (baselines !== undefined) {
      lines.push("", "torch baselines (same run):", "");
      baselines.forEach((b, k) => {
        const name = data.workloads[k]!.name;
        const sameOutput = fp32OutputText(b, data.tuned.find((r) => r.workload === name)?.bestMs);
        lines.push(
          `- ${name}: ${b.op.what} ${fmt(b.op.medianMs)} ms${b.gemmOnly === undefined ? "" : `; ${b.gemmOnly.what} ${fmt(b.gemmOnly.medianMs)} ms`}${sameOutput === undefined ? "" : `; ${sameOutput}`}`,
        );
      });
    }
    lines.push("");
  }
  const charts: string[] = [];
  if (data.course.length > 0) {
    lines.push("## The course's space: evolutionary search against random sampling", "");
    lines.push("| seed | strategy | trials | best (ms) | found at trial | wall (s) |", "|---:|---|---:|---:|---:|---:|");
    for (const row of data.course)
      lines.push(`| ${row.seed} | ${row.strategy} | ${row.trials} | ${fmt(row.bestMs)} | ${row.bestTrial ?? "—"} | ${row.wallSeconds.toFixed(1)} |`);
    const strategies = [...new Set(data.course.map((r) => r.strategy))];
    lines.push("", "Mean over seeds of the best-so-far after N trials (ms):", "");
    const checkpoints = [8, 16, 32, 64, 128, 256].filter((n) => n <= Math.max(...data.course.map((r) => r.trials)));
    lines.push(`| strategy | ${checkpoints.map((n) => `${n}`).join(" | ")} |`, `|---|${checkpoints.map(() => "---:").join("|")}|`);
    for (const s of strategies) {
      const rows = data.course.filter((r) => r.strategy === s);
      const cells = checkpoints.map((n) => {
        const vals = rows.map((r) => r.curveMs[Math.min(n, r.curveMs.length) - 1]).filter((v): v is number => v !== undefined);
        return vals.length === rows.length ? fmt(vals.reduce((a, b) => a + b, 0) / vals.length) : "—";
      });
      lines.push(`| ${s} | ${cells.join(" | ")} |`);
    }
    charts.push(`${stem}-course-space.svg`);
    lines.push("", `![course space curves](${stem}-course-space.png)`, "");
  }
  if (data.tuned.length > 0) {
    charts.push(`${stem}-auto-space.svg`);
    lines.push(`![automatic space curves](${stem}-auto-space.png)`, "");
  }
  // The numbers first: a chart that fails to draw must not lose a long GPU run's results.
  writeFileSync(join(mode.outDir, `${stem}.md`), `${lines.join("\n")}\n`);
  writeFileSync(
    join(mode.outDir, `${stem}.json`),
    `${JSON.stringify({ date, dryRun: mode.dryRun, learnedFeatures: mode.learnedFeatures, neighbourShare: mode.neighbourShare ?? null, population: mode.population ?? null, freshPool: mode.freshPool ?? null, islands: mode.islands ?? null, climbSteps: mode.climbSteps ?? null, polishTrials: mode.polishTrials ?? null, mutatorWeights: mode.mutatorWeights ?? null, searchWorkers: mode.searchWorkers, warmWorkers: mode.warmWorkers, overlap: mode.overlap, lastBatchSeesFirst: mode.lastBatchSeesFirst, device: data.device, target: data.target.name, speed: data.speed, torch: data.torch, tuned: data.tuned, course: data.course, charts }, null, 1)}\n`,
  );
  console.log(lines.join("\n"));
  console.log(`wrote ${join(mode.outDir, `${stem}.{md,json}`)}`);
  try {
    await writeReportCharts(mode.outDir, stem, { dryRun: mode.dryRun, tuned: data.tuned, course: data.course, baselines });
    if (charts.length > 0) console.log(`wrote ${charts.join(", ")}`);
  } catch (err) {
    console.error(
      `bench:tune: the charts could not be drawn (${err instanceof Error ? err.message : String(err)}); redraw them from ${stem}.json with redraw-charts.ts`,
    );
  }
}

/**
 * `--gpus 0,1,…` compares tuning on one GPU and on several, through the job queue's workers: an
 * app-level benchmark (it starts `tessera worker` processes), run as its own program.
 */
function forwardGpus(): number | undefined {
  if (!process.argv.slice(2).some((a) => a === "--gpus" || a.startsWith("--gpus="))) return undefined;
  const script = join(repoRoot, "apps", "cli", "bench", "tune-gpus.bench.ts");
  const run = spawnSync(process.execPath, ["--import", "tsx", "--conditions=@tessera/source", script, ...process.argv.slice(2)], {
    stdio: "inherit",
    cwd: repoRoot,
  });
  return run.status ?? 1;
}

/** The Mode `parse` gives; a UsageError ends the run with the usage and exit code 2. */
function modeOrUsage(parse: () => Mode): Mode {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`bench:tune: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
}

const forwarded = forwardGpus();
if (forwarded !== undefined) process.exit(forwarded);
// Every mistake that needs none of the compiler's modules is refused before they load.
modeOrUsage(() => parseMode(undefined));
const { codegenCuda, lower, cudaTarget: resolveTarget } = await import("@tessera/codegen");
const { courseSearchSpace, fastSchedule, manualSchedule } = await import("@tessera/corpus");
const { gemmReluAdd } = await import("@tessera/ir");
const { cuda, deviceTarget } = await import("@tessera/runtime");
const { Schedule, Trace } = await import("@tessera/schedule");
const {
  EvolutionarySearch,
  FAILED_RUN_SECS,
  ForestModel,
  HybridModel,
  LocalRunner,
  firstResultChecker,
  defaultCudaSpaceGenerator,
  replayWithPostprocs,
  scheduleFromRecord,
  tuneContext,
  tuneTIR,
  workloadOf,
  ReplayPool,
  warmReplayPool,
} = await import("../src/index.js");
const { DEFAULT_CUDA_MUTATOR_PROBABILITIES } = await import("../src/space/defaults.js");
const { defaultSearchWorkers } = await import("../src/search/replay-pool.js");
const { gemmKnobsOf } = await import("./fast-region.js");
const { baselineMs, fp32OutputText, likeForLike, torchBaselines } = await import("./torch-baselines.js");
const { writeReportCharts } = await import("./tune-charts.js");
const { BENCH_WORKLOADS } = await import("./workloads.js");
await main(
  modeOrUsage(() =>
    parseMode({
      workloadNames: BENCH_WORKLOADS.map((w) => w.name),
      mutatorNames: Object.keys(DEFAULT_CUDA_MUTATOR_PROBABILITIES),
      defaultSearchWorkers: defaultSearchWorkers(),
    }),
  ),
);

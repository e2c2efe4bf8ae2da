/**
 * `pnpm bench:search-offline`: screens search settings on many seeds without a GPU. The "GPU" is
 * recorded-hardware.ts: the recorded `bench:tune` runs of gemm+ReLU+add 2048³ on one device (their
 * measured times as ratios to cuBLAS), and a forest's estimate for programs no run measured. The
 * search runs as in `pnpm bench:tune` (automatic space, hybrid cost model, rounds of `--per-iter`)
 * with each variant's evolutionary-search settings. A screen, not a measurement: a setting that
 * wins here still has to win on the GPU.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/search-offline.bench.ts
 *       [--runs DIR,DIR…] [--device H200] [--seeds 1-8]
 *       [--variants default,…] [--trials 256] [--per-iter 32] [--workers 0,3] [--overlap [--last-batch-sees-first]] [--picks] [--out FILE.json]
 *   … search-offline.bench.ts --merge A.json B.json … [--md docs/benchmarks/search-offline.md]
 *
 * `--workers 0,3` runs every variant and seed once per number of search worker threads (default:
 * the cores less one) and reports the wall-time speed-up over the first count, and whether the
 * runs found the same programs (they must: the search is deterministic whatever the count).
 * `--overlap` searches each batch while the one before is measured (TuneOptions.overlapSearch);
 * `--last-batch-sees-first` with it searches a two-batch run's second batch after the first is
 * measured (TuneOptions.lastBatchSeesFirst).
 * `--picks` lists in each row of the `--out` report every measured program in trial order (its
 * decisions and time over cuBLAS), for reading what a seed's rounds measured.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { TraceJSON } from "@tessera/schedule";
import type { EvolutionarySearchConfig } from "../src/index.js";
import type { CudaMutatorProbabilities } from "../src/space/defaults.js";
import { median } from "../../ir/bench/bench-util.js";
import type { RecordedHardware as StandInGpu } from "./recorded-hardware.js";
import { existingFolder } from "./command-line.js";
import { isReportFile } from "./report-files.js";

const WORKLOAD = "gemm_relu_add_2048";
const TARGET_RATIO = 1.1;
const CHECKPOINTS = [64, 128, 256];

/** The evolutionary-search settings compared (the rest of the configuration is the default; `default` at 256 trials: neighbours 0.25, population 256). */
export const VARIANTS: Readonly<Record<string, Partial<EvolutionarySearchConfig>>> = {
  default: {},
  /** The defaults before neighbours and the budget-sized population (2026-11-28). */
  "previous-default": { neighbourShare: 0, populationSize: 64 },
  "neighbours-25-population-64": { neighbourShare: 0.25, populationSize: 64 },
  "neighbours-50-population-64": { neighbourShare: 0.5, populationSize: 64 },
  "neighbours-0-population-256": { neighbourShare: 0, populationSize: 256 },
  "neighbours-25-population-128": { neighbourShare: 0.25, populationSize: 128 },
  /** The 256-trial population at any budget: at 64 trials "auto" gives 64, so the first round ranks 64 fresh samples. */
  "population-256": { populationSize: 256 },
  /** 256 fresh samples a round, the prior's (then the model's) best 64 of them the population. */
  "fresh-pool-256": { freshPoolSize: 256 },
  /** Half the 256-trial population and 2 generations instead of 3: half the replays a round (session 15: cheaper, and worse on the H200). */
  "population-128-generations-2": { populationSize: 128, geneticNumIters: 2 },
  "previous-mutator-weights": {},
  /** The first round evolves 1 (2, the default since session 18; 3) populations of fresh samples apart and picks from their best merged (session 17). */
  "islands-1": { firstRoundIslands: 1 },
  "islands-2": { firstRoundIslands: 2 },
  "islands-3": { firstRoundIslands: 3 },
  /** The last 4 trials a batch of their own, the best measured programs' one-decision neighbours (session 22). */
  "polish-4": { polishTrials: 4 },
};

/** Variants that differ in the design space's mutator probabilities (the rest as `default`). */
export const MUTATOR_VARIANTS: Readonly<Record<string, Partial<CudaMutatorProbabilities>>> = {
  /** The weights before session 8 (MutateGemmKnob 0.1, MutateUnroll 0.08; the default now is 0.5 and 0.15). */
  "previous-mutator-weights": { gemmKnob: 0.1, unroll: 0.08 },
};

interface Row {
  readonly variant: string;
  readonly seed: number;
  /** Best time over cuBLAS after each checkpoint's number of trials. */
  readonly bestAt: Record<number, number | null>;
  readonly bestTrial: number | null;
  /** Share of the measured candidates whose time is a recorded measurement (the rest are estimates). */
  readonly recordedShare: number;
  readonly wallSeconds: number;
  /** The best program's sampled decisions in trace order (as bench:tune's reports list them). */
  readonly bestDecisions: readonly unknown[];
  /** Search worker threads (absent in reports from before --workers). */
  readonly workers?: number;
  readonly overlap?: boolean;
  /** With `--last-batch-sees-first` (absent in reports from before it). */
  readonly lastBatchSeesFirst?: boolean;
  /** A digest of every measured trace in order: equal digests, same search. */
  readonly tracesDigest?: string;
  /** With `--picks`: every measured program in trial order, its decisions and its time over cuBLAS (null: failed). */
  readonly picks?: readonly { readonly decisions: readonly unknown[]; readonly ratio: number | null }[];
}

interface Report {
  readonly date: string;
  readonly device: string;
  readonly runs: number;
  readonly programs: number;
  readonly cublasMs: number;
  readonly trials: number;
  readonly rows: Row[];
}

const USAGE =
  "usage: bench:search-offline [--runs DIR,DIR…] [--device NAME] [--seeds 1-8|1,2,5] [--variants " +
  `${Object.keys(VARIANTS).join(",")}] [--trials N] [--per-iter N] [--workers 0,3] [--overlap [--last-batch-sees-first]] [--picks] [--out FILE.json]\n       bench:search-offline --merge A.json B.json … [--md FILE.md]`;

function seedsOf(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (m === null) throw new RangeError(`--seeds: "${part}" is not a seed or a range a-b`);
    if (Number(m[2] ?? m[1]) < Number(m[1])) throw new RangeError(`--seeds: the range "${part}" is empty`);
    for (let s = Number(m[1]); s <= Number(m[2] ?? m[1]); s++) out.push(s);
  }
  return out;
}

interface RunSettings {
  readonly trials: number;
  readonly perIter: number;
  readonly workers: number;
  readonly overlap: boolean;
  readonly lastBatchSeesFirst: boolean;
  /** Whether each row lists its measured programs in trial order (`--picks`). */
  readonly picks: boolean;
}

async function runOne(
  hw: StandInGpu,
  variant: string,
  seed: number,
  { trials, perIter, workers, overlap, lastBatchSeesFirst, picks }: RunSettings,
): Promise<Row> {
  hw.resetCounts();
  const started = performance.now();
  const func = gemmReluAdd(2048).func;
  const result = await tuneTIR(func, target("nvidia/h100"), {
    workDir: join(os.tmpdir(), "tessera-search-offline", `${variant}-${seed}-${Date.now()}`),
    maxTrialsGlobal: trials,
    numTrialsPerIter: perIter,
    strategy: () => new EvolutionarySearch(VARIANTS[variant]),
    ...(MUTATOR_VARIANTS[variant] === undefined
      ? {}
      : { space: defaultCudaSpaceGenerator(target("nvidia/h100"), { mutatorProbabilities: MUTATOR_VARIANTS[variant] }) }),
    runner: hw,
    database: "memory",
    seed,
    searchWorkers: workers,
    overlapSearch: overlap,
    lastBatchSeesFirst,
    writeCurve: false,
    logSummary: false,
    logger: () => {},
  });
  const bests = result.history.map((t) => t.totalBestSecs);
  const ratioAt = (n: number) => {
    const b = bests[Math.min(n, bests.length) - 1];
    return b === undefined || !Number.isFinite(b) || b > 1e6 ? null : (b * 1e3) / hw.cublasMs;
  };
  const best = Math.min(...bests);
  const top = result.database.hasWorkload(func) ? result.database.getTopK(result.database.commitWorkload(func), 1)[0] : undefined;
  const bestTrial = Number.isFinite(best) ? result.history.findIndex((t) => t.ok && t.latencySecs === best) + 1 : null;
  return {
    variant,
    seed,
    bestAt: Object.fromEntries(CHECKPOINTS.map((c) => [c, ratioAt(c)])),
    bestTrial,
    recordedShare: hw.recordedHits / Math.max(1, hw.recordedHits + hw.estimated),
    wallSeconds: (performance.now() - started) / 1000,
    bestDecisions: top?.trace.decisions.map(([, d]) => d) ?? [],
    workers,
    overlap,
    ...(lastBatchSeesFirst ? { lastBatchSeesFirst } : {}),
    tracesDigest: digestOfTraces(result.database.getAllTuningRecords().map((r) => r.trace)),
    ...(picks ? { picks: picksOf(result.database.getAllTuningRecords(), hw.cublasMs) } : {}),
  };
}

/** The measured programs in trial order (the database's records are in that order), with their times over cuBLAS (the median of run_secs). */
function picksOf(
  records: readonly { readonly trace: TraceJSON; readonly runSecs: readonly number[] | undefined }[],
  cublasMs: number,
): NonNullable<Row["picks"]> {
  return records.map((r) => {
    const secs = r.runSecs === undefined || r.runSecs.length === 0 ? undefined : median([...r.runSecs]);
    return { decisions: r.trace.decisions.map(([, d]) => d), ratio: secs === undefined || secs > 1e6 ? null : (secs * 1e3) / cublasMs };
  });
}

function digestOfTraces(traces: readonly unknown[]): string {
  const h = createHash("sha1");
  for (const t of traces) h.update(JSON.stringify(t));
  return h.digest("hex").slice(0, 12);
}

/** Per variant and seed: wall time of each worker count over the first's, and whether all found the same programs. */
function speedUpLines(rows: readonly Row[]): string[] {
  const counts = [...new Set(rows.map((r) => r.workers).filter((w): w is number => w !== undefined))];
  if (counts.length < 2) return [];
  const base = counts[0]!;
  const later = counts.slice(1);
  const lines = [
    "",
    `Search worker threads (speed-up: wall time with ${base} over wall time with N; same: every run measured the same traces in the same order):`,
    "",
    `| variant | seed | ${counts.map((c) => `wall s, ${c}`).join(" | ")} | ${later.map((c) => `speed-up ${c}`).join(" | ")} | same |`,
    `|---|---:|${counts.map(() => "---:").join("|")}|${later.map(() => "---:").join("|")}|---|`,
  ];
  const keyOf = (r: Row) => `${labelOf(r)}/${r.seed}`;
  for (const key of new Set(rows.map(keyOf))) {
    const group = rows.filter((r) => keyOf(r) === key);
    const byCount = (c: number) => group.find((r) => r.workers === c);
    const baseWall = byCount(base)?.wallSeconds;
    const walls = counts.map((c) => byCount(c)?.wallSeconds.toFixed(0) ?? "—");
    const speedUps = later.map((c) => {
      const w = byCount(c)?.wallSeconds;
      return w === undefined || baseWall === undefined ? "—" : `${(baseWall / w).toFixed(2)}×`;
    });
    const same = new Set(group.map((r) => r.tracesDigest)).size === 1 ? "yes" : "NO";
    const first = group[0]!;
    lines.push(`| ${labelOf(first)} | ${first.seed} | ${walls.join(" | ")} | ${speedUps.join(" | ")} | ${same} |`);
  }
  return lines;
}

/** What the stand-in GPU's table depends on: the recorded reports, and the code of the latency model and features. */
function cacheKeyOf(dirs: readonly string[], device: string): string {
  const h = createHash("sha1").update(device);
  for (const dir of dirs) for (const f of readdirSync(dir).filter(isReportFile).sort()) h.update(`${f}:${statSync(join(dir, f)).size}`);
  const src = join(import.meta.dirname, "../src");
  for (const dir of ["latency-model", "store-analysis", "feature", "postproc"]) {
    for (const f of readdirSync(join(src, dir))
      .filter((x) => x.endsWith(".ts"))
      .sort())
      h.update(readFileSync(join(src, dir, f)));
  }
  return h.digest("hex");
}

/** A row's variant, with the scheduling it ran under. */
function labelOf(r: Row): string {
  if (r.overlap !== true) return r.variant;
  return `${r.variant} (overlap${r.lastBatchSeesFirst === true ? ", last batch sees first" : ""})`;
}

/** A variant's settings as text ("defaults" for none). */
function settingsOf(variant: string): string {
  const v = VARIANTS[variant];
  if (v === undefined) return "?";
  const entries = Object.entries(v);
  return entries.length === 0 ? "defaults" : entries.map(([k, x]) => `${k} ${String(x)}`).join(", ");
}

/** A ratio, or "—" for none (the median or maximum of no runs: NaN, -Infinity). */
const fmtOrNone = (x: number) => (Number.isFinite(x) ? `${x.toFixed(3)}×` : "—");
const fmt = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${x.toFixed(3)}×`);

function markdownOf(reports: readonly Report[]): string {
  const lines = [
    "# Offline search screen — recorded measurements as the GPU (no GPU)",
    "",
    "Generated by `pnpm bench:search-offline` (packages/meta-schedule/bench/search-offline.bench.ts).",
    "The stand-in GPU (bench/recorded-hardware.ts): the recorded `bench:tune` runs of gemm+ReLU+add 2048³ on one",
    "device, each distinct program with its measured time over cuBLAS; a program none of them measured gets a",
    "forest's estimate from its kernel summary (smoother than a GPU). A seed that a recorded run used with the same",
    "settings follows that run while it meets recorded programs. A setting that wins here still has to win on the GPU.",
  ];
  // One section per stand-in: the recorded runs grow between screens.
  const standIns = new Map<string, Report[]>();
  for (const r of reports) {
    const key = `${r.runs} recorded runs on ${r.device}, ${r.programs} programs`;
    standIns.set(key, [...(standIns.get(key) ?? []), r]);
  }
  for (const [standIn, group] of standIns) lines.push("", `## Stand-in: ${standIn}`, "", ...sectionOf(group.flatMap((r) => r.rows)));
  return `${lines.join("\n")}\n`;
}

function sectionOf(rows: readonly Row[]): string[] {
  const lines = [
    "| variant | settings | runs | within 1.10× @256 | median @64 | median @256 | worst @256 | recorded share |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const label of [...new Set(rows.map(labelOf))]) {
    const rs = rows.filter((x) => labelOf(x) === label);
    const variant = rs[0]!.variant;
    const at = (c: number) => rs.map((x) => x.bestAt[c]).filter((v): v is number => v !== null);
    const hits = at(256).filter((v) => v <= TARGET_RATIO).length;
    lines.push(
      `| ${label} | ${settingsOf(variant)} | ${rs.length} | ${hits} of ${rs.length} | ${fmtOrNone(median(at(64)))} | ${fmtOrNone(median(at(256)))} | ${fmtOrNone(Math.max(...at(256)))} | ${(rs.reduce((a, x) => a + x.recordedShare, 0) / rs.length).toFixed(2)} |`,
    );
  }
  lines.push("", "| variant | seed | workers | @64 | @128 | @256 | found at | recorded share | wall s |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const x of [...rows].sort((a, b) => a.variant.localeCompare(b.variant) || a.seed - b.seed)) {
    lines.push(
      `| ${labelOf(x)} | ${x.seed} | ${x.workers ?? "—"} | ${CHECKPOINTS.map((c) => fmt(x.bestAt[c])).join(" | ")} | ${x.bestTrial ?? "—"} | ${x.recordedShare.toFixed(2)} | ${x.wallSeconds.toFixed(0)} |`,
    );
  }
  lines.push(...speedUpLines(rows));
  return lines;
}

interface Options {
  readonly dirs: string[];
  readonly device: string;
  readonly seeds: number[];
  readonly variants: string[];
  readonly trials: number;
  readonly perIter: number;
  /** Search worker counts (undefined: the default, the cores less one). */
  readonly workers: number[] | undefined;
  readonly overlap: boolean;
  readonly lastBatchSeesFirst: boolean;
  readonly picks: boolean;
  readonly out?: string;
  /** --merge: the reports to merge into one table, and where to write it. */
  readonly merge?: { readonly reports: string[]; readonly md?: string };
}

/** `--last-batch-sees-first`, which only `--overlap` gives a meaning. */
function lastBatchSeesFirstOf(overlap: boolean, sees: boolean): boolean {
  if (sees && !overlap) throw new RangeError("--last-batch-sees-first needs --overlap (without it every batch is searched after the one before is measured)");
  return sees;
}

const repoRoot = join(import.meta.dirname, "../../..");

/** The command line, checked; a mistake prints the message and the usage, and exits with 2. */
function options(): Options {
  try {
    const { values, positionals } = parseArgs({
      options: {
        runs: { type: "string", default: "docs/benchmarks,docs/benchmarks/tuning-gemm-256-2026-11-28" },
        device: { type: "string", default: "H200" },
        seeds: { type: "string", default: "1-8" },
        variants: { type: "string", default: Object.keys(VARIANTS).join(",") },
        trials: { type: "string", default: "256" },
        "per-iter": { type: "string", default: "32" },
        workers: { type: "string" },
        overlap: { type: "boolean", default: false },
        "last-batch-sees-first": { type: "boolean", default: false },
        picks: { type: "boolean", default: false },
        out: { type: "string" },
        merge: { type: "boolean", default: false },
        md: { type: "string" },
      },
      allowPositionals: true,
    });
    if (values.merge) {
      if (positionals.length === 0) throw new RangeError("--merge needs report files");
      return {
        dirs: [],
        device: "",
        seeds: [],
        variants: [],
        trials: 0,
        perIter: 0,
        workers: [],
        overlap: false,
        lastBatchSeesFirst: false,
        picks: false,
        merge: { reports: positionals, ...(values.md === undefined ? {} : { md: values.md }) },
      };
    }
    if (positionals.length > 0) throw new RangeError(`unexpected argument "${positionals[0]}"`);
    const int = (name: string, text: string) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`--${name} must be a positive integer, got "${text}"`);
      return n;
    };
    const variants = values.variants.split(",").map((v) => {
      if (!Object.hasOwn(VARIANTS, v)) throw new RangeError(`--variants: unknown variant "${v}" (${Object.keys(VARIANTS).join(", ")})`);
      return v;
    });
    return {
      dirs: values.runs.split(",").map((d) => existingFolder(repoRoot, d)),
      device: values.device,
      seeds: seedsOf(values.seeds),
      variants,
      trials: int("trials", values.trials),
      perIter: int("per-iter", values["per-iter"]),
      workers: values.workers?.split(",").map((w) => {
        const n = Number(w);
        if (!Number.isInteger(n) || n < 0) throw new RangeError(`--workers must be non-negative integers separated by commas, got "${w}"`);
        return n;
      }),
      overlap: values.overlap,
      lastBatchSeesFirst: lastBatchSeesFirstOf(values.overlap, values["last-batch-sees-first"]),
      picks: values.picks,
      ...(values.out === undefined ? {} : { out: values.out }),
    };
  } catch (err) {
    console.error(`bench:search-offline: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

/** A report written by `--out`; an unreadable or foreign file ends the merge with its name and exit code 2. */
function readReport(path: string): Report {
  let report: Partial<Report>;
  try {
    report = JSON.parse(readFileSync(path, "utf8")) as Partial<Report>;
  } catch (err) {
    console.error(`bench:search-offline: cannot read the report ${path}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
  if (report === null || typeof report !== "object" || !Array.isArray(report.rows) || typeof report.runs !== "number" || typeof report.device !== "string") {
    console.error(`bench:search-offline: ${path} is not a report of bench:search-offline --out (no device, runs and rows)`);
    process.exit(2);
  }
  return report as Report;
}

async function main(opts: Options, reportsToMerge: readonly Report[] | undefined): Promise<void> {
  if (opts.merge !== undefined) {
    const md = markdownOf(reportsToMerge ?? []);
    if (opts.merge.md !== undefined) writeFileSync(opts.merge.md, md);
    process.stdout.write(md);
    return;
  }
  const started = performance.now();
  const func = gemmReluAdd(2048).func;
  const tgt = target("nvidia/h100");
  const cache = join(os.tmpdir(), "tessera-recorded-hardware.json");
  const hw = RecordedHardware.cached(cache, cacheKeyOf(opts.dirs, opts.device), () =>
    RecordedHardware.build(opts.dirs, WORKLOAD, func, tgt, { device: opts.device }),
  );
  console.log(
    `stand-in GPU: ${hw.runs} runs, ${hw.programs} programs, cuBLAS ${hw.cublasMs.toFixed(4)} ms (ready in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  const rows: Row[] = [];
  const reportOf = (done: Row[]): Report => ({
    date: new Date().toISOString(),
    device: opts.device,
    runs: hw.runs,
    programs: hw.programs,
    cublasMs: hw.cublasMs,
    trials: opts.trials,
    rows: done,
  });
  // Seed by seed, every variant of a seed before the next seed: a screen cut short keeps whole pairs.
  for (const seed of opts.seeds) {
    for (const variant of opts.variants) {
      for (const workers of opts.workers ?? [defaultSearchWorkers()]) {
        const row = await runOne(hw, variant, seed, {
          trials: opts.trials,
          perIter: opts.perIter,
          workers,
          overlap: opts.overlap,
          lastBatchSeesFirst: opts.lastBatchSeesFirst,
          picks: opts.picks,
        });
        console.log(
          `${variant} seed ${seed}, ${workers} search worker(s): ${CHECKPOINTS.map((c) => `@${c} ${fmt(row.bestAt[c])}`).join(", ")}, recorded ${row.recordedShare.toFixed(2)}, ${row.wallSeconds.toFixed(0)} s`,
        );
        rows.push(row);
        // After every row, so that a screen cut short keeps the rows it finished.
        if (opts.out !== undefined) writeFileSync(opts.out, `${JSON.stringify(reportOf(rows), null, 1)}\n`);
      }
    }
  }
  process.stdout.write(markdownOf([reportOf(rows)]));
}

// The command line and the reports to merge are checked before the compiler loads (most of a
// start's CPU): a mistake is refused at once.
const opts = options();
const reportsToMerge = opts.merge?.reports.map(readReport);
const { target } = await import("@tessera/codegen");
const { gemmReluAdd } = await import("@tessera/ir");
const { EvolutionarySearch, defaultCudaSpaceGenerator, tuneTIR } = await import("../src/index.js");
const { defaultSearchWorkers } = await import("../src/search/replay-pool.js");
const { RecordedHardware } = await import("./recorded-hardware.js");
await main(opts, reportsToMerge);

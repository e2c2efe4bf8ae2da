/**
 * `pnpm bench:prior-switches`: the analytic latency model's switches (`EstimateOptions`) judged on
 * the profiles `pnpm bench:prior-profiles` wrote, without rebuilding a program: every program is
 * estimated again from its kernels' profiles under each setting, and each setting gets the mean of
 * the runs' Spearman correlations with the measured times, the mean regret of the model's top 8
 * (its fastest measured program over the run's fastest), and the pooled correlation of all
 * programs' estimates with their times over cuBLAS's of the same run. Offline and seconds long,
 * but the recorded programs are the ones earlier models chose to measure: a setting that wins
 * here still has to win on the GPU.
 *
 * `--pairs` adds what the model cannot see: for each sampling decision, the pairs of measured
 * programs that differ in it alone, the median of their measured time ratios, the median of the
 * model's (default setting), and how many pairs the model estimates equal where the GPU measured
 * them more than 3% apart (session 23 found the fetch order so, and the launch bound).
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/prior-switches.ts PROFILES.json [--min-programs 60] [--pairs]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { KernelProfile } from "../src/latency-model/kernel-profile.js";
import type { EstimateOptions } from "../src/latency-model/latency-model.js";
import { median } from "../../ir/bench/bench-util.js";

const USAGE = "usage: bench:prior-switches PROFILES.json [--min-programs N] [--pairs]";
/** Measured ratios further than this from 1 count as a difference the model should see. */
const MEASURED_DIFFERENCE = 0.03;

/** The settings compared: the model as it is, and each switch turned the other way. */
const SETTINGS: Readonly<Record<string, EstimateOptions>> = {
  default: {},
  "global lines off the shared data path": { l1SharesDataPath: false },
  "issue and shared wavefronts added by order 3": { sharedOverlapOrder: 3 },
  "a barrier stall of 100 cycles for a block alone on its SM": { loneBlockBarrierCycles: 100 },
};

interface ProfileRow {
  readonly workload?: string;
  readonly run: string;
  readonly ms: number;
  /** The sampling decisions in trace order (bench:prior-profiles writes them; `--pairs` reads them). */
  readonly decisions?: readonly unknown[];
  readonly cublasMs?: number;
  readonly kernels: readonly { readonly profile: KernelProfile }[];
}

function fail(message: string): never {
  console.error(`bench:prior-switches: ${message}\n${USAGE}`);
  process.exit(2);
}

function options(): { file: string; minPrograms: number; pairs: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { "min-programs": { type: "string", default: "60" }, pairs: { type: "boolean", default: false } } });
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const [file, ...rest] = parsed.positionals;
  if (file === undefined || rest.length > 0) fail("one PROFILES.json (bench:prior-profiles --out) is needed");
  const minPrograms = Number(parsed.values["min-programs"]);
  if (!Number.isInteger(minPrograms) || minPrograms < 2) fail(`--min-programs must be an integer ≥ 2, got ${parsed.values["min-programs"]}`);
  return { file, minPrograms, pairs: parsed.values.pairs === true };
}

/** The rows of a prior-profiles file, each checked for what the estimate needs. */
function readRows(file: string): ProfileRow[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    fail(`${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(data)) fail(`${file}: not a JSON array of bench:prior-profiles rows`);
  data.forEach((row: Partial<ProfileRow>, k) => {
    const ok = typeof row.run === "string" && Number(row.ms) > 0 && Array.isArray(row.kernels) && row.kernels.every((x) => typeof x?.profile === "object");
    if (!ok) fail(`${file}: row ${k} is not a bench:prior-profiles row (run, ms and kernels' profiles)`);
  });
  return data as ProfileRow[];
}

const { file, minPrograms, pairs } = options();
const rows = readRows(file);
// The compiler loads once the command line and the file are known to be good: a mistake is refused at once.
const { cudaTarget } = await import("@tessera/codegen");
const { gpuSpecOf } = await import("../src/latency-model/gpu-spec.js");
const { estimateKernel } = await import("../src/latency-model/latency-model.js");
const { rankingOf } = await import("./recorded-runs.js");
const spec = gpuSpecOf(cudaTarget("nvidia/h200"));
/** A program's estimated seconds under `opts`: its kernels', one after the other. */
const estimateOf = (row: ProfileRow, opts: EstimateOptions = {}) => row.kernels.reduce((s, k) => s + estimateKernel(k.profile, spec, opts).seconds, 0);
const runs = new Map<string, ProfileRow[]>();
for (const row of rows) runs.set(row.run, [...(runs.get(row.run) ?? []), row]);
const judged = [...runs.values()].filter((r) => r.length >= minPrograms);
const pooled = rows.filter((r) => Number(r.cublasMs) > 0);
if (judged.length === 0) fail(`${file}: no run has ${minPrograms} programs`);
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
/**
 * recorded-runs.ts's ranking of programs by their estimates (faster first), its Spearman 0 where
 * the estimates are all one (a setting that estimates every program alike orders none of them).
 */
const rankingByEstimate = (programs: readonly { readonly ms: number }[], estimates: readonly number[]) => {
  const { rho, regrets } = rankingOf(
    estimates.map((e) => 1 / e),
    programs,
    [8],
  );
  return { rho: Number.isNaN(rho) ? 0 : rho, top8Regret: regrets[0]! };
};

console.log(`${rows.length} programs, ${judged.length} runs of at least ${minPrograms} (H200's specification)\n`);
console.log("| setting | mean Spearman | mean top-8 regret | pooled Spearman (time over cuBLAS) |");
console.log("|---|---:|---:|---:|");
for (const [name, opts] of Object.entries(SETTINGS)) {
  const perRun = judged.map((run) =>
    rankingByEstimate(
      run.map((r) => ({ ms: Number(r.ms) })),
      run.map((r) => estimateOf(r, opts)),
    ),
  );
  const pooledRho = rankingByEstimate(
    pooled.map((r) => ({ ms: Number(r.ms) / Number(r.cublasMs) })),
    pooled.map((r) => estimateOf(r, opts)),
  ).rho;
  console.log(
    `| ${name} | ${mean(perRun.map((r) => r.rho)).toFixed(3)} | ${mean(perRun.map((r) => r.top8Regret)).toFixed(4)} | ${pooled.length > 1 ? pooledRho.toFixed(3) : "—"} |`,
  );
}

/** The names of a bench workload's CUDA design-space decisions (decision-names.ts), when it has `width` of them. */
async function decisionNamesOf(workload: string | undefined, width: number): Promise<string[] | undefined> {
  const { BENCH_WORKLOADS } = await import("./workloads.js");
  const bench = BENCH_WORKLOADS.find((w) => w.name === workload);
  if (bench === undefined) return undefined;
  const { defaultCudaSpaceGenerator, tuneContext, workloadOf } = await import("../src/index.js");
  const { decisionNames } = await import("./decision-names.js");
  const target = cudaTarget("nvidia/h200");
  const ctx = tuneContext(workloadOf(bench.func()), target, { seed: 1 });
  const gen = defaultCudaSpaceGenerator(target);
  gen.initialize(ctx);
  const names = decisionNames(gen.generateDesignSpace(ctx)[0]!.trace);
  return names.length === width ? names : undefined;
}

/**
 * Per decision position: the measured and estimated time ratios of programs that differ in that
 * decision alone (the later value's time over the earlier's, values ordered by their JSON; a
 * program measured twice counts once, at its median time).
 */
function singleDecisionPairs(withDecisions: readonly ProfileRow[], estimate: (row: ProfileRow) => number, names: readonly string[] | undefined): string[] {
  const width = withDecisions[0]!.decisions!.length;
  const lines = [
    "",
    "Pairs of measured programs that differ in one decision (time ratio of the later value over the earlier; the model with the default setting):",
    "",
    "| decision | pairs | measured ratio (median) | estimated ratio (median) | measured > 3% apart, estimated equal |",
    "|---|---:|---:|---:|---:|",
  ];
  for (let at = 0; at < width; at++) {
    const groups = new Map<string, Map<string, { ms: number[]; estimate: number }>>();
    for (const row of withDecisions) {
      const d = row.decisions!;
      const rest = JSON.stringify([...d.slice(0, at), ...d.slice(at + 1)]);
      const value = JSON.stringify(d[at]);
      const byValue = groups.get(rest) ?? new Map<string, { ms: number[]; estimate: number }>();
      groups.set(rest, byValue);
      const entry = byValue.get(value) ?? { ms: [], estimate: estimate(row) };
      entry.ms.push(Number(row.ms));
      byValue.set(value, entry);
    }
    const measured: number[] = [];
    const estimated: number[] = [];
    let blind = 0;
    for (const byValue of groups.values()) {
      const values = [...byValue.keys()].sort();
      for (let a = 0; a < values.length; a++) {
        for (let b = a + 1; b < values.length; b++) {
          const x = byValue.get(values[a]!)!;
          const y = byValue.get(values[b]!)!;
          const m = median(y.ms) / median(x.ms);
          const e = y.estimate / x.estimate;
          measured.push(m);
          estimated.push(e);
          if (Math.abs(m - 1) > MEASURED_DIFFERENCE && e === 1) blind++;
        }
      }
    }
    if (measured.length === 0) continue;
    lines.push(
      `| ${at}${names?.[at] === undefined ? "" : ` ${names[at]}`} | ${measured.length} | ${median(measured).toFixed(3)} | ${median(estimated).toFixed(3)} | ${blind} |`,
    );
  }
  return lines;
}

if (pairs) {
  const withDecisions = rows.filter((r) => Array.isArray(r.decisions));
  const width = withDecisions[0]?.decisions?.length;
  if (width === undefined || withDecisions.some((r) => r.decisions!.length !== width)) {
    console.log("\n--pairs: the rows do not all carry decisions of one design space; no pairs.");
  } else {
    const names = await decisionNamesOf(withDecisions[0]!.workload, width);
    for (const line of singleDecisionPairs(withDecisions, (row) => estimateOf(row), names)) console.log(line);
  }
}

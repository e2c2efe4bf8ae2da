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
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/prior-switches.ts PROFILES.json [--min-programs 60]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { KernelProfile } from "../src/latency-model/kernel-profile.js";
import type { EstimateOptions } from "../src/latency-model/latency-model.js";
import { spearman } from "../test/cost-model/rank-correlation.js";

const USAGE = "usage: bench:prior-switches PROFILES.json [--min-programs N]";

/** The settings compared: the model as it is, and each switch turned the other way. */
const SETTINGS: Readonly<Record<string, EstimateOptions>> = {
  default: {},
  "global lines off the shared data path": { l1SharesDataPath: false },
  "issue and shared wavefronts added by order 3": { sharedOverlapOrder: 3 },
};

interface ProfileRow {
  readonly run: string;
  readonly ms: number;
  readonly cublasMs?: number;
  readonly kernels: readonly { readonly profile: KernelProfile }[];
}

function fail(message: string): never {
  console.error(`bench:prior-switches: ${message}\n${USAGE}`);
  process.exit(2);
}

function options(): { file: string; minPrograms: number } {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { "min-programs": { type: "string", default: "60" } } });
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const [file, ...rest] = parsed.positionals;
  if (file === undefined || rest.length > 0) fail("one PROFILES.json (bench:prior-profiles --out) is needed");
  const minPrograms = Number(parsed.values["min-programs"]);
  if (!Number.isInteger(minPrograms) || minPrograms < 2) fail(`--min-programs must be an integer ≥ 2, got ${parsed.values["min-programs"]}`);
  return { file, minPrograms };
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

const { file, minPrograms } = options();
const rows = readRows(file);
// The compiler loads once the command line and the file are known to be good: a mistake is refused at once.
const { cudaTarget } = await import("@tessera/codegen");
const { gpuSpecOf } = await import("../src/latency-model/gpu-spec.js");
const { estimateKernel } = await import("../src/latency-model/latency-model.js");
const spec = gpuSpecOf(cudaTarget("nvidia/h200"));
const runs = new Map<string, ProfileRow[]>();
for (const row of rows) runs.set(row.run, [...(runs.get(row.run) ?? []), row]);
const judged = [...runs.values()].filter((r) => r.length >= minPrograms);
const pooled = rows.filter((r) => Number(r.cublasMs) > 0);
if (judged.length === 0) fail(`${file}: no run has ${minPrograms} programs`);
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** Spearman's correlation, 0 where a side is constant (a setting that estimates every program alike orders none of them). */
const rankCorrelation = (a: readonly number[], b: readonly number[]) => {
  const rho = spearman(a, b);
  return Number.isNaN(rho) ? 0 : rho;
};

console.log(`${rows.length} programs, ${judged.length} runs of at least ${minPrograms} (H200's specification)\n`);
console.log("| setting | mean Spearman | mean top-8 regret | pooled Spearman (time over cuBLAS) |");
console.log("|---|---:|---:|---:|");
for (const [name, opts] of Object.entries(SETTINGS)) {
  const estimate = (row: ProfileRow) => row.kernels.reduce((s, k) => s + estimateKernel(k.profile, spec, opts).seconds, 0);
  const rhos: number[] = [];
  const regrets: number[] = [];
  for (const run of judged) {
    const ms = run.map((r) => Number(r.ms));
    const est = run.map(estimate);
    rhos.push(rankCorrelation(ms, est));
    const top8 = est
      .map((_, k) => k)
      .sort((a, b) => est[a]! - est[b]!)
      .slice(0, 8);
    regrets.push(Math.min(...top8.map((k) => ms[k]!)) / Math.min(...ms));
  }
  const pooledRho = rankCorrelation(
    pooled.map((r) => Number(r.ms) / Number(r.cublasMs)),
    pooled.map(estimate),
  );
  console.log(`| ${name} | ${mean(rhos).toFixed(3)} | ${mean(regrets).toFixed(4)} | ${pooled.length > 1 ? pooledRho.toFixed(3) : "—"} |`);
}

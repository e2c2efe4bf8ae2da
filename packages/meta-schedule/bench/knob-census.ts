/**
 * `pnpm bench:knob-census`: what the good programs of recorded GPU tuning runs share, and where the
 * runs spent their measurements — read from the reports alone (no replay, a few seconds). Every
 * `pnpm bench:tune` report under the folders lists each measured program's decisions in trace
 * order; each decision is named by what the default CUDA design space does with it (the
 * annotation it sets, the loop it splits) and read by value. A program is good when its time is
 * within `--good` of cuBLAS measured in the same run.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/knob-census.ts
 *       [--reports docs/benchmarks] [--workload gemm_relu_add_2048] [--device H200] [--good 1.05] [--out-dir DIR]
 *
 * Per decision: the share of the good programs and of all measured programs holding each value.
 * A decision whose one value holds at least 90% of the good programs is a shared knob; per run:
 * its best ratio and how many of its programs held every shared knob at once. Writes
 * knob-census.{json,md} to --out-dir when given.
 *
 * `--picks A.json,B.json.gz` (reports of `bench:search-offline --picks`, gzipped or not): per variant and seed, how
 * many of the first round's picks (the first `--first` measured programs, default 32) held every
 * shared knob, and how many tile families they came from (programs alike in every tile and split
 * decision). A first round's picks depend on no measurement (the model is its prior alone), so
 * these counts are exact whatever the stand-in GPU estimated.
 */
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { cudaTarget } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import type { Trace } from "@tessera/schedule";
import { defaultCudaSpaceGenerator, tuneContext, workloadOf } from "../src/index.js";
import { decisionNames, decisionValues } from "./decision-names.js";
import { existingFile, existingFolder } from "./command-line.js";
import { isReportFile, readReportText } from "./report-files.js";
import { type BenchWorkload, BENCH_WORKLOADS } from "./workloads.js";

const USAGE =
  "usage: bench:knob-census [--reports DIR,DIR…] [--workload NAME] [--device NAME] [--good RATIO] [--out-dir DIR] [--picks OFFLINE.json,…] [--first N]";
const repoRoot = resolve(import.meta.dirname, "../../..");
/** A value must hold this share of the good programs for its decision to count as a shared knob. */
const SHARED_KNOB_SHARE = 0.9;

interface Program {
  readonly ratio: number;
  /** Decision values by decision name. */
  readonly values: readonly string[];
}

interface Run {
  readonly name: string;
  readonly bestRatio: number;
  readonly bestTrial: number | undefined;
  readonly programs: readonly Program[];
}

interface Report {
  readonly device?: unknown;
  readonly torch?: {
    readonly ok?: boolean;
    readonly baselines?: readonly {
      readonly spec?: unknown;
      readonly op?: { readonly medianMs?: number };
      readonly gemmOnly?: { readonly medianMs?: number };
    }[];
  };
  readonly tuned?: readonly { workload: string; seed: number; bestTrial?: number; top?: readonly { ms: number; decisions?: readonly unknown[] }[] }[];
}

function reportFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const path = join(dir, f);
      if (statSync(path).isDirectory()) return reportFiles(path);
      return isReportFile(f) ? [path] : [];
    });
}

/** The vendor library's time in a report: cuBLAS alone for gemm+ReLU+add (as bench:tune compares it), else torch's op. */
function vendorMsOf(report: Report, workload: BenchWorkload): number | undefined {
  if (report.torch?.ok !== true) return undefined;
  const baseline = report.torch.baselines?.find((b) => JSON.stringify(b.spec) === JSON.stringify(workload.torch));
  const ms = baseline?.gemmOnly?.medianMs ?? baseline?.op?.medianMs;
  return ms !== undefined && ms > 0 ? ms : undefined;
}

function runsOf(files: readonly string[], workload: BenchWorkload, device: string, space: Trace): Run[] {
  const runs: Run[] = [];
  for (const file of files) {
    let report: Report;
    try {
      report = JSON.parse(readReportText(file)) as Report;
    } catch {
      continue;
    }
    const vendorMs = vendorMsOf(report, workload);
    if (typeof report.device !== "string" || !report.device.includes(device) || vendorMs === undefined) continue;
    for (const run of report.tuned ?? []) {
      if (run.workload !== workload.name || run.top === undefined) continue;
      const programs = run.top.flatMap((p) => {
        const values = p.decisions === undefined || !(p.ms > 0) ? undefined : decisionValues(space, p.decisions);
        return values === undefined ? [] : [{ ratio: p.ms / vendorMs, values }];
      });
      if (programs.length === 0) continue;
      runs.push({
        name: `${relative(repoRoot, file)} seed ${run.seed}`,
        bestRatio: Math.min(...programs.map((p) => p.ratio)),
        bestTrial: run.bestTrial,
        programs,
      });
    }
  }
  return runs;
}

function designSpaceOf(func: PrimFunc): Trace {
  const tgt = cudaTarget("nvidia/h100");
  const ctx = tuneContext(workloadOf(func), tgt, { seed: 1 });
  const gen = defaultCudaSpaceGenerator(tgt);
  gen.initialize(ctx);
  return gen.generateDesignSpace(ctx)[0]!.trace.simplified({ removePostproc: true });
}

function options() {
  try {
    const { values } = parseArgs({
      options: {
        reports: { type: "string", default: "docs/benchmarks" },
        workload: { type: "string", default: "gemm_relu_add_2048" },
        device: { type: "string", default: "H200" },
        good: { type: "string", default: "1.05" },
        "out-dir": { type: "string" },
        picks: { type: "string" },
        first: { type: "string", default: "32" },
      },
    });
    const first = Number(values.first);
    if (!(Number.isInteger(first) && first >= 1)) throw new RangeError(`--first must be a positive integer, got "${values.first}"`);
    const picks = values.picks === undefined ? [] : values.picks.split(",").map((f) => existingFile(f));
    const good = Number(values.good);
    if (!(good > 1)) throw new RangeError(`--good must be a ratio above 1, got "${values.good}"`);
    const workload = BENCH_WORKLOADS.find((w) => w.name === values.workload);
    if (workload === undefined) throw new RangeError(`--workload: unknown workload "${values.workload}" (${BENCH_WORKLOADS.map((w) => w.name).join(", ")})`);
    const reports = values.reports.split(",").map((d) => existingFolder(repoRoot, d));
    if (values["out-dir"] !== undefined) existingFolder(repoRoot, values["out-dir"]);
    return { reports, workload, device: values.device, good, outDir: values["out-dir"], picks, first };
  } catch (err) {
    console.error(`bench:knob-census: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(0)}%`;

const opts = options();
const space = designSpaceOf(opts.workload.func());
const names = decisionNames(space);
const runs = runsOf(
  opts.reports.flatMap((d) => reportFiles(d)),
  opts.workload,
  opts.device,
  space,
);
if (runs.length === 0) {
  console.error(`bench:knob-census: no ${opts.workload.name} run on a ${opts.device} with decisions and a vendor time under ${opts.reports.join(", ")}`);
  process.exit(2);
}
const all = runs.flatMap((r) => r.programs);
const good = all.filter((p) => p.ratio <= opts.good);
const perDecision = names.map((name, k) => {
  const count = (ps: readonly Program[]) => {
    const m = new Map<string, number>();
    for (const p of ps) m.set(p.values[k]!, (m.get(p.values[k]!) ?? 0) + 1);
    return m;
  };
  const inGood = count(good);
  const inAll = count(all);
  const values = [...inAll.keys()].sort((a, b) => (inGood.get(b) ?? 0) - (inGood.get(a) ?? 0) || (inAll.get(b) ?? 0) - (inAll.get(a) ?? 0));
  const top = values[0]!;
  return {
    name,
    values: values.map((v) => ({ value: v, good: inGood.get(v) ?? 0, measured: inAll.get(v) ?? 0 })),
    shared: (inGood.get(top) ?? 0) >= SHARED_KNOB_SHARE * good.length ? top : undefined,
  };
});
const shared = perDecision.flatMap((d, k) => (d.shared === undefined ? [] : [{ k, value: d.shared }]));
const complete = (p: Program) => shared.every(({ k, value }) => p.values[k] === value);
const perRun = runs.map((r) => ({
  run: r.name,
  programs: r.programs.length,
  bestRatio: r.bestRatio,
  bestTrial: r.bestTrial,
  knobComplete: r.programs.filter(complete).length,
}));

const lines = [
  `# What the good programs share (${opts.workload.name}, ${opts.device})`,
  "",
  "Generated by `pnpm bench:knob-census` (packages/meta-schedule/bench/knob-census.ts) from the recorded `bench:tune` reports",
  `under ${opts.reports.map((d) => relative(repoRoot, d)).join(", ")}: ${runs.length} runs, ${all.length} measured programs, ${good.length} of them`,
  `within ${opts.good}× of cuBLAS timed in the same run ("good"). No replay: each decision is named by what the default CUDA`,
  "design space does with it and read by value.",
  "",
  `Shared knobs (one value held by ≥ ${SHARED_KNOB_SHARE * 100}% of the good programs): ${shared.map(({ k, value }) => `${names[k]} = ${value}`).join("; ")}.`,
  `Measured programs holding all of them at once: ${all.filter(complete).length} of ${all.length} (${pct(all.filter(complete).length, all.length)}); of the good: ${good.filter(complete).length} of ${good.length}.`,
  "",
  "| decision | value: share of the good programs / of all measured |",
  "|---|---|",
  ...perDecision.map(
    (d) =>
      `| ${d.shared === undefined ? d.name : `**${d.name}**`} | ${d.values
        .slice(0, 6)
        .map((v) => `${v.value}: ${pct(v.good, good.length)} / ${pct(v.measured, all.length)}`)
        .join(", ")} |`,
  ),
  "",
  "Per run: the best program, and how many measured programs held every shared knob.",
  "",
  "| run | programs | best vs cuBLAS | found at | knob-complete programs |",
  "|---|---:|---:|---:|---:|",
  ...perRun
    .sort((a, b) => a.bestRatio - b.bestRatio)
    .map((r) => `| ${r.run} | ${r.programs} | ${r.bestRatio.toFixed(3)}× | ${r.bestTrial ?? "—"} | ${r.knobComplete} |`),
  "",
];
lines.push(...firstRoundLines());
process.stdout.write(lines.join("\n"));
if (opts.outDir !== undefined) {
  const dir = resolve(repoRoot, opts.outDir);
  writeFileSync(
    join(dir, "knob-census.json"),
    `${JSON.stringify({ workload: opts.workload.name, device: opts.device, good: opts.good, perDecision, perRun }, null, 1)}\n`,
  );
  writeFileSync(join(dir, "knob-census.md"), lines.join("\n"));
}

interface OfflineRow {
  readonly variant: string;
  readonly seed: number;
  readonly picks?: readonly { readonly decisions: readonly unknown[]; readonly ratio: number | null }[];
}

/** Per `--picks` report row: the first round's picks holding every shared knob, and their tile families. */
function firstRoundLines(): string[] {
  if (opts.picks.length === 0) return [];
  const tileDecisions = names.flatMap((n, k) => (/ (split|tile)\b/.test(n) ? [k] : []));
  const out = [
    `First rounds (the first ${opts.first} measured programs of each \`bench:search-offline --picks\` row): picks holding every shared knob,`,
    "and the tile families they came from (alike in every split and tile decision); best: the stand-in's ratio to cuBLAS.",
    "",
    "| report | variant | seed | picks with every shared knob | tile families | best |",
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const file of opts.picks) {
    const rows = (JSON.parse(readReportText(file)) as { rows?: readonly OfflineRow[] }).rows ?? [];
    for (const row of rows) {
      const firsts = (row.picks ?? []).slice(0, opts.first).flatMap((p) => {
        const values = decisionValues(space, p.decisions);
        return values === undefined ? [] : [{ values, ratio: p.ratio }];
      });
      if (firsts.length === 0) continue;
      const families = new Set(firsts.map((p) => tileDecisions.map((k) => p.values[k]).join("|")));
      const ratios = firsts.flatMap((p) => (p.ratio === null ? [] : [p.ratio]));
      const complete = firsts.filter((p) => shared.every(({ k, value }) => p.values[k] === value)).length;
      out.push(
        `| ${relative(repoRoot, file)} | ${row.variant} | ${row.seed} | ${complete} of ${firsts.length} | ${families.size} | ${ratios.length === 0 ? "—" : `${Math.min(...ratios).toFixed(3)}×`} |`,
      );
    }
  }
  return ["", ...out, ""];
}

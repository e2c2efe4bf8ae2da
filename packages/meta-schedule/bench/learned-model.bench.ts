/**
 * `pnpm bench:learned-model`: cost models judged offline on real GPU measurements. The programs
 * of recorded `pnpm bench:tune` runs (reports under docs/benchmarks that list every measured
 * program's decisions, recorded-runs.ts) are rebuilt; each model is trained on a random subset of
 * one run's programs and ranks every program of another run — the situation of a tuning run,
 * whose model learns from what it measured and must judge programs it has not seen.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/learned-model.bench.ts
 *       [--reports docs/benchmarks] [--sizes 32,64,128,256] [--seeds 1,2] [--out-dir docs/benchmarks]
 *
 * Per model and training size, over every ordered pair of runs on the same device and forest seeds: the Spearman
 * correlation of the scores with measured throughput, and the regret of the model's top 8 and
 * top 32 (the fastest measured program among them over the run's fastest: 1.000 when the model's
 * picks include the best). Writes learned-model-gpu.{json,md}.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CostModel, FeatureExtractor, FeatureMatrix, MeasureCandidate, RunnerResult, TuneContext } from "../src/index.js";
import { existingFolder } from "./command-line.js";
import type { RecordedProgram, RecordedRun } from "./recorded-runs.js";

const USAGE = "usage: bench:learned-model [--reports DIR] [--sizes 32,64,128,256] [--seeds 1,2] [--out-dir DIR]";
const repoRoot = resolve(import.meta.dirname, "../../..");

/** The command line, or the usage and exit 2 on a mistake (no stack trace). */
function options() {
  try {
    const { values } = parseArgs({
      options: {
        reports: { type: "string", default: "docs/benchmarks" },
        sizes: { type: "string", default: "32,64,128,256" },
        seeds: { type: "string", default: "1,2" },
        "out-dir": { type: "string", default: "docs/benchmarks" },
      },
    });
    const positiveInts = (name: string, text: string): number[] =>
      text.split(",").map((t) => {
        const n = Number(t);
        if (!Number.isInteger(n) || n < 1) throw new RangeError(`--${name} must be a list of positive integers, got "${text}"`);
        return n;
      });
    for (const dir of [values.reports, values["out-dir"]]) existingFolder(repoRoot, dir);
    return { ...values, sizes: positiveInts("sizes", values.sizes), seeds: positiveInts("seeds", values.seeds) };
  } catch (err) {
    console.error(`bench:learned-model: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}
const values = options();
const { sizes, seeds } = values;
// The compiler loads once the command line is known to be good: a mistake is refused at once.
const { gemmReluAdd } = await import("@tessera/ir");
const { RandomEngine } = await import("@tessera/schedule");
const { AnalyticModel, ForestModel, HybridModel, PerStoreFeature } = await import("../src/index.js");
const { kernelSummaryForest } = await import("../src/cost-model/hybrid-model.js");
const { randomPermutation } = await import("../src/search/weighted-sampler.js");
const { MIN_RANKED_PROGRAMS, rankingOf, recordedRuns } = await import("./recorded-runs.js");

/** Per-store rows computed once per program (every model instance asks for them again). */
class RememberedPerStoreFeature implements FeatureExtractor {
  readonly name = "per-store-feature";
  readonly featureLength: number;
  readonly #inner = new PerStoreFeature();
  readonly #rows = new WeakMap<object, FeatureMatrix>();
  constructor() {
    this.featureLength = this.#inner.featureLength;
  }
  extractFrom(ctx: TuneContext, candidates: readonly MeasureCandidate[]): FeatureMatrix[] {
    return candidates.map((c) => {
      let rows = this.#rows.get(c.sch);
      if (rows === undefined) this.#rows.set(c.sch, (rows = this.#inner.extractFrom(ctx, [c])[0]!));
      return rows;
    });
  }
}
const perStore = new RememberedPerStoreFeature();

const MODELS: Record<string, (seed: number) => CostModel & { numSamples?: number }> = {
  "analytic (no training)": () => new AnalyticModel(),
  "forest, per-store features": (seed) => new ForestModel({ seed, numWarmupSamples: 0, extractor: perStore }),
  "forest, kernel-summary features": (seed) => kernelSummaryForest({ seed, numWarmupSamples: 0 }),
  "hybrid, per-store forest": (seed) => new HybridModel({ learned: new ForestModel({ seed, extractor: perStore }) }),
  "hybrid, kernel-summary forest (default)": (seed) => new HybridModel({ learned: kernelSummaryForest({ seed }) }),
};

const started = Date.now();
const func = gemmReluAdd(2048).func;
const recorded = recordedRuns(resolve(repoRoot, values.reports), "gemm_relu_add_2048", func);
const ctx = recorded.ctx;
const runs = recorded.runs.filter((r) => r.programs.length >= MIN_RANKED_PROGRAMS);
if (runs.length < 2) {
  console.error(`bench:learned-model: need two recorded runs with decisions under ${values.reports}, found ${runs.length}`);
  process.exit(2);
}
for (const r of runs) console.log(`${r.name}: ${r.programs.length} programs (${r.skipped} no longer replay), ${r.device}`);

const results = (ps: readonly RecordedProgram[]): RunnerResult[] => ps.map((p) => ({ ok: true, runSecs: [p.ms / 1e3] }));

interface Cell {
  rho: number[];
  top8: number[];
  top32: number[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** One model trained on `size` random programs of each run and judged on every other run of `group`, per forest seed. */
function judge(group: readonly RecordedRun[], make: (seed: number) => CostModel, size: number): Cell {
  const cell: Cell = { rho: [], top8: [], top32: [] };
  for (const train of group) {
    for (const test of group) {
      if (train === test) continue;
      for (const seed of seeds) {
        const order = randomPermutation(train.programs.length, new RandomEngine(seed));
        const subset = order.slice(0, size).map((k) => train.programs[k]!);
        const model = make(seed);
        model.update(
          ctx,
          subset.map((p) => p.candidate),
          results(subset),
        );
        const scores = model.predict(
          ctx,
          test.programs.map((p) => p.candidate),
        );
        const { rho, regrets } = rankingOf(scores, test.programs, [8, 32]);
        cell.rho.push(rho);
        cell.top8.push(regrets[0]!);
        cell.top32.push(regrets[1]!);
      }
    }
  }
  return cell;
}

// Runs are paired within one kind of GPU only: a model learns one device's speeds.
const table = new Map<string, Cell>();
for (const device of new Set(runs.map((r) => r.device))) {
  const group = runs.filter((r) => r.device === device);
  if (group.length < 2) continue;
  for (const [name, make] of Object.entries(MODELS)) {
    for (const size of sizes) {
      const cell = judge(group, make, size);
      table.set(`${device}|${name}|${size}`, cell);
      console.log(
        `${device}: ${name.padEnd(42)} n=${String(size).padStart(3)}  rho ${mean(cell.rho).toFixed(3)}  top-8 regret ${mean(cell.top8).toFixed(3)}  top-32 regret ${mean(cell.top32).toFixed(3)}`,
      );
    }
  }
}

const rows = [...table].map(([key, c]) => {
  const [device, model, size] = key.split("|");
  return {
    device: device!,
    model: model!,
    trainingSize: Number(size),
    rho: mean(c.rho),
    top8Regret: mean(c.top8),
    top32Regret: mean(c.top32),
    cases: c.rho.length,
  };
});
const outDir = resolve(repoRoot, values["out-dir"]);
const report = {
  date: new Date().toISOString(),
  runs: runs.map((r) => ({ name: r.name, device: r.device, programs: r.programs.length, skipped: r.skipped })),
  seeds,
  rows,
};
writeFileSync(join(outDir, "learned-model-gpu.json"), `${JSON.stringify(report, null, 1)}\n`);
const md = [
  "# Cost models on recorded GPU measurements (offline)",
  "",
  "Generated by `pnpm bench:learned-model` (packages/meta-schedule/bench/learned-model.bench.ts) on",
  `${report.date}, ${((Date.now() - started) / 1000).toFixed(0)} s. No GPU: the measurements are those recorded by \`pnpm bench:tune\` on the device named`,
  "below; the programs are rebuilt from their recorded decisions. Each model is trained on a random subset of one",
  "run's programs and scores every program of another run on the same device; the figures are means over every ordered pair of such runs",
  `and forest seeds ${seeds.join(", ")}. *rho*: Spearman correlation of the scores with measured throughput; *top-k regret*:`,
  "the fastest measured program among the model's k best-scored over the run's fastest (1.000: the model's picks hold the best).",
  "",
  "Runs:",
  "",
  ...report.runs.map((r) => `- ${r.name}: ${r.programs} programs (${r.skipped} no longer replay), ${r.device}`),
  "",
  "| device | model | trained on | rho | top-8 regret | top-32 regret | cases |",
  "|---|---|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) => `| ${r.device} | ${r.model} | ${r.trainingSize} | ${r.rho.toFixed(3)} | ${r.top8Regret.toFixed(3)} | ${r.top32Regret.toFixed(3)} | ${r.cases} |`,
  ),
  "",
].join("\n");
writeFileSync(join(outDir, "learned-model-gpu.md"), md);
console.log(`wrote ${join(values["out-dir"], "learned-model-gpu.{json,md}")}`);

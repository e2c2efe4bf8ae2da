/**
 * Why a recorded run missed: the programs of recorded `pnpm bench:tune` runs of gemm+ReLU+add 2048³
 * (recorded-runs.ts: rebuilt from their decisions, checked against their recorded kernel knobs)
 * grouped by their thread tile — the lengths of the per-thread register copies of A and of B
 * (`A_shared_local[a] B_shared_local[b]`: a×b accumulators) — with, per group and run, how many
 * were measured, the fastest measured time (and its ratio to the run's cuBLAS), and the analytic
 * model's best score (the hybrid cost model's prior). No GPU.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/thread-tile-census.ts
 *       [--runs docs/benchmarks/tuning-climb-2026-11-30-s13] [--top 4]
 *
 * search-workers-local.md (session 14) reads it: on the H200 the fast programs hold 16 of A and 8
 * of B a thread, the analytic model scores that tile and its transpose (8 of A, 16 of B) alike, and
 * a run whose early picks all took the transpose (seed 90) never measured the faster one in 64 trials.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { gemmReluAdd } from "@tessera/ir";
import { AnalyticModel } from "../src/index.js";
import { loweredModuleFor } from "../src/postproc/verify-gpu-code.js";
import { existingFolder } from "./command-line.js";
import { gemmKnobsOf, threadTileOf } from "./fast-region.js";
import { recordedRuns } from "./recorded-runs.js";

const USAGE = "usage: thread-tile-census.ts [--runs DIR,DIR…] [--top N]";
const repoRoot = resolve(import.meta.dirname, "../../..");

function options(): { runs: string[]; top: number } {
  try {
    const { values } = parseArgs({
      options: { runs: { type: "string", default: "docs/benchmarks/tuning-climb-2026-11-30-s13" }, top: { type: "string", default: "4" } },
    });
    const runs = values.runs.split(",").filter((d) => d.length > 0);
    if (runs.length === 0) throw new RangeError("--runs names no folder");
    for (const dir of runs) existingFolder(repoRoot, dir);
    const top = Number(values.top);
    if (!Number.isInteger(top) || top < 1) throw new RangeError(`--top must be an integer ≥ 1, got ${JSON.stringify(values.top)}`);
    return { runs, top };
  } catch (err) {
    console.error(`thread-tile-census: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

interface Group {
  measured: number;
  bestMs: number;
  bestScore: number;
}

const { runs: dirs, top } = options();
const func = gemmReluAdd(2048).func;
const model = new AnalyticModel();
console.log("| run | programs | thread tile (A×B) | measured | fastest ms | vs cuBLAS | best analytic score |");
console.log("|---|---:|---|---:|---:|---:|---:|");
for (const dir of dirs) {
  const { ctx, runs } = recordedRuns(resolve(repoRoot, dir), "gemm_relu_add_2048", func);
  for (const run of runs) {
    const scores = model.predict(
      ctx,
      run.programs.map((p) => p.candidate),
    );
    const groups = new Map<string, Group>();
    run.programs.forEach((p, k) => {
      const module = loweredModuleFor(p.candidate.sch.func);
      const tile = module === undefined ? "?" : threadTileOf(gemmKnobsOf(module).local);
      const g = groups.get(tile) ?? { measured: 0, bestMs: Infinity, bestScore: -Infinity };
      g.measured++;
      g.bestMs = Math.min(g.bestMs, p.ms);
      g.bestScore = Math.max(g.bestScore, scores[k]!);
      groups.set(tile, g);
    });
    const ranked = [...groups].sort((a, b) => a[1].bestMs - b[1].bestMs).slice(0, top);
    for (const [tile, g] of ranked) {
      const ratio = run.cublasMs === undefined ? "" : `${(g.bestMs / run.cublasMs).toFixed(3)}×`;
      console.log(`| ${run.name} | ${run.programs.length} | ${tile} | ${g.measured} | ${g.bestMs.toFixed(4)} | ${ratio} | ${g.bestScore.toFixed(3)} |`);
    }
  }
}

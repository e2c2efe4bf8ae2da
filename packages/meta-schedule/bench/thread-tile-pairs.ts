/**
 * The thread-tile orientation, controlled for the launch: in recorded `pnpm bench:tune` runs of
 * gemm+ReLU+add 2048³ (recorded-runs.ts), per run and launch (grid, block, launch bounds,
 * pipelining), the fastest measured program holding 16 of A and 8 of B a thread and the fastest
 * holding 8 and 16, with their times, the analytic model's scores and what else differs (the
 * float4 fetches, and whether anything but the register tile differs); each pair's CUDA is written
 * to OUT_DIR for a diff. No GPU.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/thread-tile-pairs.ts
 *       [--runs docs/benchmarks/tuning-climb-2026-11-30-s13] [--out-dir /tmp/thread-tile-pairs]
 *
 * search-workers-local.md (session 15) reads it: the one pair whose CUDA differs only in the
 * orientation is 0.8 % apart; the 4–16 % of thread-tile-census.ts compare programs that also differ
 * in their global fetches.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { codegenCuda } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { AnalyticModel } from "../src/index.js";
import { loweredModuleFor } from "../src/postproc/verify-gpu-code.js";
import { type GemmKnobs, gemmKnobsOf, threadTileOf } from "./fast-region.js";
import { existingFolder } from "./command-line.js";
import { recordedRuns } from "./recorded-runs.js";

const repoRoot = resolve(import.meta.dirname, "../../..");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "docs/benchmarks/tuning-climb-2026-11-30-s13" },
    "out-dir": { type: "string", default: "/tmp/thread-tile-pairs" },
  },
});
const dirs = values.runs.split(",").filter((d) => d.length > 0);
for (const dir of dirs) existingFolder(repoRoot, dir);
const outDir = values["out-dir"];
mkdirSync(outDir, { recursive: true });

/**
 * Whether two kernels differ only in their register tile: equal once every line that reads or
 * writes a thread's operand copies or accumulators (`*_shared_local`, `matmul_local`: the inner
 * loop's shared reads and FMAs, the epilogue) is left out — the same fetches, shared stores and loops.
 */
function onlyTileDiffers(a: string, b: string): boolean {
  const rest = (cuda: string) =>
    cuda
      .split("\n")
      .filter((l) => !/_shared_local|matmul_local/.test(l))
      .join("\n");
  return rest(a) === rest(b);
}

interface Program {
  readonly ms: number;
  readonly score: number;
  readonly knobs: GemmKnobs;
  readonly cuda: string;
}

const func = gemmReluAdd(2048).func;
const model = new AnalyticModel();
console.log("| run | launch | 16×8 ms | score | float4 fetches | 8×16 ms | score | float4 fetches | only the register tile differs | 8×16 / 16×8 |");
console.log("|---|---|---:|---:|---|---:|---:|---|---|---:|");
for (const dir of dirs) {
  const { ctx, runs } = recordedRuns(resolve(repoRoot, dir), "gemm_relu_add_2048", func);
  for (const run of runs) {
    const scores = model.predict(
      ctx,
      run.programs.map((p) => p.candidate),
    );
    const fastest = new Map<string, Map<string, Program>>();
    run.programs.forEach((p, k) => {
      const module = loweredModuleFor(p.candidate.sch.func);
      if (module === undefined) return;
      const knobs = gemmKnobsOf(module);
      const tile = threadTileOf(knobs.local);
      const launch = `${knobs.grid} ${knobs.block} (${knobs.launchBounds}${knobs.pipelined ? ", pipelined" : ""})`;
      const byTile = fastest.get(launch) ?? new Map<string, Program>();
      if ((byTile.get(tile)?.ms ?? Infinity) > p.ms) byTile.set(tile, { ms: p.ms, score: scores[k]!, knobs, cuda: codegenCuda(module).source });
      fastest.set(launch, byTile);
    });
    for (const [launch, byTile] of fastest) {
      const [a, b] = [byTile.get("16×8"), byTile.get("8×16")];
      if (a === undefined || b === undefined) continue;
      const stem = join(outDir, `${run.name}-${launch}`.replace(/[^\w.-]+/g, "_"));
      writeFileSync(`${stem}-16x8.cu`, a.cuda);
      writeFileSync(`${stem}-8x16.cu`, b.cuda);
      const fetches = (p: Program) => p.knobs.float4Fetches || "—";
      console.log(
        `| ${run.name} | ${launch} | ${a.ms.toFixed(4)} | ${a.score.toFixed(3)} | ${fetches(a)} | ${b.ms.toFixed(4)} | ${b.score.toFixed(3)} | ${fetches(b)} | ${onlyTileDiffers(a.cuda, b.cuda) ? "yes" : "no"} | ${(b.ms / a.ms).toFixed(3)} |`,
      );
    }
  }
}

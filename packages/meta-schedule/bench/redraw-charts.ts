/**
 * Draws the charts of `pnpm bench:tune` reports again from their JSON, beside them (the GPU host
 * has no PNG renderer, and a chart's style may change after a run):
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/redraw-charts.ts docs/benchmarks/tuning-gemm.json …
 */
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { type ChartRow, writeReportCharts } from "./tune-charts.js";
import type { TorchBaseline } from "./torch-baselines.js";

async function main(files: readonly string[]): Promise<void> {
  if (files.length === 0) {
    console.error("usage: redraw-charts.ts REPORT.json [REPORT.json …]   (reports written by pnpm bench:tune)");
    process.exit(2);
  }
  for (const file of files) {
    const report = JSON.parse(readFileSync(file, "utf8")) as {
      dryRun: boolean;
      tuned: ChartRow[];
      course: ChartRow[];
      torch?: { ok: boolean; baselines?: TorchBaseline[] };
    };
    const baselines = report.torch?.ok === true ? report.torch.baselines : undefined;
    await writeReportCharts(dirname(file), basename(file, ".json"), { dryRun: report.dryRun, tuned: report.tuned, course: report.course, baselines });
    console.log(`charts of ${file} written`);
  }
}

await main(process.argv.slice(2));

/**
 * The charts of `pnpm bench:tune`'s report (redraw-charts.ts draws them again from a report's JSON).
 *
 * Workloads of very different sizes share one chart: the best-so-far over the torch baseline
 * (1 = as fast as cuBLAS / cuDNN) on a GPU, the latency on a log scale in a dry run. The course
 * space's runs (one line per strategy and seed) are drawn in milliseconds on a log scale.
 */
import { join } from "node:path";
import { FAILED_RUN_SECS } from "../src/index.js";
import { type CurveOptions, type CurveSeries, bestSoFarPoints, writeTuningCurve } from "../src/report/tuning-curve.js";
import { type TorchBaseline, baselineMs } from "./torch-baselines.js";

/** What the charts need of a tuning run (a row of the report). */
export interface ChartRow {
  readonly workload: string;
  readonly strategy: string;
  readonly seed: number;
  /** Best-so-far ms after each trial (undefined, or null in JSON, before the first success). */
  readonly curveMs: readonly (number | undefined | null)[];
}

export interface ChartInput {
  readonly dryRun: boolean;
  readonly tuned: readonly ChartRow[];
  readonly course: readonly ChartRow[];
  /** Torch baselines of `tuned`, in order, when the run had them. */
  readonly baselines: readonly TorchBaseline[] | undefined;
}

function curveOf(r: ChartRow, name: string): CurveSeries {
  return { name, points: bestSoFarPoints(r.curveMs.map((c) => (c === undefined || c === null ? FAILED_RUN_SECS : c / 1e3))) };
}

/** SVG, and PNG where the renderer loads (not in the GPU bundle). */
async function writeCurve(file: string, series: readonly CurveSeries[], opts: CurveOptions): Promise<void> {
  try {
    await writeTuningCurve(file, series, { ...opts, png: true });
  } catch (err) {
    console.warn(`bench:tune: no PNG beside ${file} (${err instanceof Error ? err.message : String(err)}); writing the SVG only`);
    await writeTuningCurve(file, series, opts);
  }
}

/** Writes `<stem>-auto-space.svg` and/or `<stem>-course-space.svg` (+ .png) into `outDir`. */
export async function writeReportCharts(outDir: string, stem: string, input: ChartInput): Promise<void> {
  const simulated = input.dryRun ? " (simulated)" : "";
  if (input.course.length > 0) {
    await writeCurve(
      join(outDir, `${stem}-course-space.svg`),
      input.course.map((r) => curveOf(r, `${r.strategy}, seed ${r.seed}`)),
      {
        title: `Course space, gemm+ReLU+add 2048³: best latency vs trials${simulated}`,
        logScale: true,
      },
    );
  }
  if (input.tuned.length > 0) {
    const series = input.tuned.map((r, k): CurveSeries => {
      const b = input.baselines?.[k];
      const curve = curveOf(r, r.workload);
      if (b === undefined) return curve;
      const base = baselineMs(b);
      return { name: r.workload, points: curve.points.map((p) => ({ trials: p.trials, bestLatencyUs: p.bestLatencyUs / 1e3 / base })) };
    });
    await writeCurve(join(outDir, `${stem}-auto-space.svg`), series, {
      title: `Automatic space, evolutionary search${simulated}`,
      logScale: true,
      yTitle: input.baselines === undefined ? "Best latency (us)" : "Best latency / torch (cuBLAS, cuDNN)",
    });
  }
}

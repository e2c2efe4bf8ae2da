/**
 * The tuning curve: best latency so far against trials, one line per run (a seed, a strategy, a
 * task), drawn with Vega-Lite and rendered headlessly by Vega to SVG (no canvas needed), and to
 * PNG with resvg when asked. The bench reuses `writeTuningCurve` for its comparisons.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { MissingPeerDependencyError } from "../errors.js";
import { FAILED_RUN_SECS } from "../interfaces/runner.js";
import { importOptionalPeer } from "./optional-peer.js";

export interface CurvePoint {
  /** Trials measured so far (1-based). */
  readonly trials: number;
  /** Best latency after those trials, in microseconds (or another positive quantity named by CurveOptions.yTitle). */
  readonly bestLatencyUs: number;
}

export interface CurveSeries {
  /** The legend entry: a run, seed or strategy. */
  readonly name: string;
  readonly points: readonly CurvePoint[];
}

export interface CurveOptions {
  readonly title?: string;
  /** Also write a PNG next to the SVG (same name, `.png`). */
  readonly png?: boolean;
  readonly width?: number;
  readonly height?: number;
  /** Log scale on the y axis (for runs whose latencies differ by orders of magnitude). */
  readonly logScale?: boolean;
  /** The y axis title (default "Best latency (us)"); say what is plotted when the points hold a ratio instead. */
  readonly yTitle?: string;
}

/** The best-so-far curve of a sequence of trial latencies in seconds (failures are FAILED_RUN_SECS); trials before the first success have no point. */
export function bestSoFarPoints(latenciesSecs: readonly number[]): CurvePoint[] {
  const points: CurvePoint[] = [];
  let best = FAILED_RUN_SECS;
  latenciesSecs.forEach((t, i) => {
    best = Math.min(best, t);
    if (best < FAILED_RUN_SECS) points.push({ trials: i + 1, bestLatencyUs: best * 1e6 });
  });
  return points;
}

function vegaLiteSpec(series: readonly CurveSeries[], opts: CurveOptions): Record<string, unknown> {
  const values = series.flatMap((s) => s.points.map((p) => ({ run: s.name, trials: p.trials, best: p.bestLatencyUs })));
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: opts.title ?? "Tuning curve",
    width: opts.width ?? 640,
    height: opts.height ?? 360,
    background: "white",
    data: { values },
    // Dots on every trial only while they stay apart.
    mark: { type: "line", interpolate: "step-after", point: Math.max(0, ...series.map((s) => s.points.length)) <= 40 },
    encoding: {
      x: { field: "trials", type: "quantitative", title: "Trials", scale: { domainMin: 0 } },
      y: { field: "best", type: "quantitative", title: opts.yTitle ?? "Best latency (us)", scale: opts.logScale === true ? { type: "log" } : { zero: false } },
      color: { field: "run", type: "nominal", title: "Run", legend: { labelLimit: 480 } },
    },
  };
}

/** The chart as SVG text. */
export async function tuningCurveSVG(series: readonly CurveSeries[], opts: CurveOptions = {}): Promise<string> {
  for (const s of series) {
    for (const p of s.points) {
      if (!(Number.isFinite(p.bestLatencyUs) && p.bestLatencyUs > 0 && p.trials >= 0)) {
        throw new RangeError(`tuning curve: series "${s.name}" has an invalid point (trials ${p.trials}, best latency ${p.bestLatencyUs} us)`);
      }
    }
  }
  const [vega, vegaLite] = await importOptionalPeer(() => Promise.all([import("vega"), import("vega-lite")]), ["vega", "vega-lite"], "draw tuning curves");
  const compiled = vegaLite.compile(vegaLiteSpec(series, opts) as unknown as Parameters<typeof vegaLite.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Writes the chart to `file` (SVG), and to the same name with `.png` when `opts.png`; returns the
 * paths written. The PNG is a convenience: where resvg's native renderer cannot be loaded (a
 * platform without its prebuilt binary, a bundle without node_modules) only the SVG is written
 * and `pngError` says why (install @resvg/resvg-js, an optional peer dependency, for PNGs).
 */
export async function writeTuningCurve(
  file: string,
  series: readonly CurveSeries[],
  opts: CurveOptions = {},
): Promise<{ svg: string; png?: string; pngError?: string }> {
  const svg = await tuningCurveSVG(series, opts);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, svg);
  if (opts.png !== true) return { svg: file };
  let Resvg: typeof import("@resvg/resvg-js").Resvg;
  try {
    ({ Resvg } = await importOptionalPeer(() => import("@resvg/resvg-js"), ["@resvg/resvg-js"], "render tuning curves as PNG"));
  } catch (err) {
    if (err instanceof MissingPeerDependencyError) return { svg: file, pngError: err.message };
    return { svg: file, pngError: `cannot load @resvg/resvg-js (${err instanceof Error ? err.message : String(err)})` };
  }
  const pngFile = file.replace(/\.svg$/i, "") + ".png";
  const png = new Resvg(svg, { fitTo: { mode: "zoom", value: 2 }, background: "white" }).render().asPng();
  await writeFile(pngFile, png);
  return { svg: file, png: pngFile };
}

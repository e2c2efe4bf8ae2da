/** GFLOPS-against-size charts of `pnpm bench:cpu`: Vega-Lite, rendered headlessly to SVG, and to PNG with resvg. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export interface ChartPoint {
  readonly series: string;
  readonly size: number;
  readonly gflops: number;
}

export interface ChartOptions {
  readonly title: string;
  readonly xTitle: string;
}

export async function chartSVG(points: readonly ChartPoint[], opts: ChartOptions): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: opts.title,
    width: 520,
    height: 320,
    background: "white",
    data: { values: points.filter((p) => Number.isFinite(p.gflops) && p.gflops > 0) },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "size", type: "quantitative", title: opts.xTitle, scale: { type: "log", base: 2 } },
      y: { field: "gflops", type: "quantitative", title: "GFLOPS", scale: { type: "log" } },
      color: { field: "series", type: "nominal", title: "Implementation", legend: { labelLimit: 360 } },
    },
  };
  const compiled = vegaLite.compile(spec as unknown as Parameters<typeof vegaLite.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Writes `file` (.svg) and the PNG beside it; returns the paths written. */
export async function writeChart(file: string, points: readonly ChartPoint[], opts: ChartOptions): Promise<string[]> {
  const svg = await chartSVG(points, opts);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, svg);
  try {
    const { Resvg } = await import("@resvg/resvg-js");
    const png = file.replace(/\.svg$/, ".png");
    await writeFile(png, new Resvg(svg, { fitTo: { mode: "zoom", value: 2 }, background: "white" }).render().asPng());
    return [file, png];
  } catch (err) {
    console.warn(`bench:cpu: no PNG beside ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return [file];
  }
}

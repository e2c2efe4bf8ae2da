/**
 * The batch's score histogram (OUT/histogram.svg): submissions per score band, stacked by
 * whether they were graded or failed (a failure scores 0). Drawn with Vega-Lite and rendered
 * headlessly by Vega to SVG, as @tessera/meta-schedule draws its tuning curves.
 */
import type { OutcomeSummary } from "./grade-one.js";

export interface HistogramOptions {
  readonly title?: string;
  /** Score bands (default 10 over 0..max score). */
  readonly bins?: number;
}

function spec(outcomes: readonly OutcomeSummary[], opts: HistogramOptions): Record<string, unknown> {
  const maxScore = Math.max(1, ...outcomes.map((o) => (o.status === "graded" ? o.maxScore : 0)));
  const values = outcomes.map((o) => ({ score: o.status === "graded" ? o.score : 0, status: o.status === "graded" ? "graded" : "not graded (error)" }));
  const bins = opts.bins ?? 10;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: opts.title ?? `Scores of ${outcomes.length} submission${outcomes.length === 1 ? "" : "s"}`,
    width: 480,
    height: 260,
    background: "white",
    data: { values },
    mark: { type: "bar", binSpacing: 1 },
    encoding: {
      x: { field: "score", type: "quantitative", bin: { extent: [0, maxScore], step: maxScore / bins }, title: `Score (of ${maxScore})` },
      y: { aggregate: "count", type: "quantitative", title: "Submissions", axis: { tickMinStep: 1 } },
      color: {
        field: "status",
        type: "nominal",
        title: null,
        scale: { domain: ["graded", "not graded (error)"], range: ["#4c78a8", "#e45756"] },
      },
    },
  };
}

/** The histogram as SVG text. */
export async function scoreHistogramSvg(outcomes: readonly OutcomeSummary[], opts: HistogramOptions = {}): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
  const compiled = vegaLite.compile(spec(outcomes, opts) as unknown as Parameters<typeof vegaLite.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

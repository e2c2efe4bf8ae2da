/**
 * What `pnpm grade --tune` prints: how the samples fared, a table of the valid candidates (best
 * first), the result, and the hand-in file between BEGIN/END markers. Plain text, like the
 * grading report.
 */
import { numericsSummary } from "../grade/grade-submission.js";
import { formatDecisions } from "./candidates.js";
import { SEARCH_SPACE_FILE, SEARCH_SPACE_FUNCTION } from "./search-space.js";
import { type Assessment, type CandidateStatus, QUICK_TIMING } from "./select.js";
import type { TuneResult } from "./tune.js";

/** Rows of the candidates table. */
export const TABLE_ROWS = 10;

const STATUS_LABEL: Record<CandidateStatus, string> = {
  chosen: "chosen",
  "wrong-numerics": "numerics failed",
  "timing-failed": "timing failed",
  timed: "",
  untimed: "not checked",
};

/** Everything but the hand-in file. */
export function formatTuneReport(r: TuneResult): string {
  const out: string[] = [];
  const size = `${r.size}×${r.size}×${r.size}`;
  out.push(`Tuning ${SEARCH_SPACE_FUNCTION} (${SEARCH_SPACE_FILE}) at ${size}: ${plural(r.trials, "sample")}, seeds ${r.seed}–${r.seed + r.trials - 1}`);
  out.push("name" in r.gpu ? `GPU: ${r.gpu.name}` : `GPU: none (${r.gpu.unavailable})`, "");
  out.push(...sampleLines(r), "");
  if (r.ranked.length > 0) out.push(...tableLines(r), "");
  out.push(...resultLines(r), `(tuning took ${(r.elapsedMs / 1000).toFixed(1)} s)`);
  return `${out.join("\n")}\n`;
}

function sampleLines(r: TuneResult): string[] {
  const s = r.sampling;
  const discarded = r.discarded.reduce((n, d) => n + d.count, 0);
  const distinct = s.completed - r.duplicates;
  const lines = [
    `Samples: ${s.completed} completed → ${distinct} distinct (${plural(r.duplicates, "duplicate")} dropped) → ${r.ranked.length} fit the limits of ${r.targetLabel}` +
      (discarded > 0 ? `, ${discarded} discarded:` : ""),
  ];
  const width = String(Math.max(0, ...r.discarded.map((d) => d.count))).length;
  for (const d of r.discarded) lines.push(`  ${String(d.count).padStart(width)} ${d.reason}`);
  const unexplained = r.discarded.find((d) => !d.reason.startsWith("exceed"));
  if (unexplained !== undefined) lines.push(`  (for example seed ${unexplained.example.seed}: ${unexplained.example.detail})`);
  if (s.firstError !== undefined) {
    // Its first line: the rest (the IR with the error underlined) is for reproducing it with that seed.
    const first = s.firstError.message.split("\n")[0];
    lines.push(`${s.threw} of ${r.trials} calls threw and were skipped; the first, with seed ${s.firstError.seed}: ${first}`);
  }
  if (s.unfinished > 0) lines.push(`${s.unfinished} of ${r.trials} calls did not finish: ${s.unfinishedReason ?? "?"} (fewer --trials, or a larger --timeout)`);
  return lines;
}

function tableLines(r: TuneResult): string[] {
  const timed = "name" in r.gpu;
  const shown = r.ranked.slice(0, TABLE_ROWS);
  const header = timed ? ["rank", "seed", "decisions", "quick ms", "graded ms", "status"] : ["#", "seed", "decisions", "status"];
  const rows = shown.map((a, k) => {
    const cells = [String(k + 1), String(a.candidate.seed), formatDecisions(a.candidate.decisions)];
    if (timed) cells.push(ms(a.quickMs), ms(a.final?.meanMs));
    cells.push(STATUS_LABEL[a.status]);
    return cells;
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: readonly string[]): string =>
    `  ${cells.map((cell, c) => (c === 2 || c === cells.length - 1 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")}`.trimEnd();
  const order = timed ? "fastest first" : "in sample order: without a GPU they are not timed";
  const more = r.ranked.length > shown.length ? `, top ${shown.length} shown` : "";
  const lines = [`Valid candidates (${order}${more}):`, line(header), ...rows.map(line)];
  if (timed) {
    const t = r.ranked.find((a) => a.final !== undefined)?.final;
    const quick = `mean of ${plural(QUICK_TIMING.repeat, "measurement")} of ${plural(QUICK_TIMING.number, "run")}`;
    lines.push(`  quick: ${quick}; graded: the grading settings${t === undefined ? "" : ` (mean of ${plural(t.repeats, "measurement")} of ${plural(t.number, "run")})`}`);
  }
  lines.push(...shown.flatMap(failureLine));
  return lines;
}

function failureLine(a: Assessment): string[] {
  if (a.status === "wrong-numerics" && a.numerics !== undefined) return [`  seed ${a.candidate.seed}: ${numericsSummary(a.numerics)}`];
  if (a.status === "timing-failed") return [`  seed ${a.candidate.seed}: ${a.error ?? "timing failed"}`];
  return [];
}

function resultLines(r: TuneResult): string[] {
  const c = r.chosen;
  const again = "Run again with --seed N for other samples, or with more --trials.";
  if (c === undefined) {
    const hint =
      r.ranked.length === 0 && r.discarded.length > 0
        ? "Every distinct sample is discarded: keep the sampled tiles smaller (a smaller maxInnermostFactor, or fewer threads per block)."
        : again;
    return [`No candidate found: ${r.noChoiceReason ?? "none of the samples fits"}.`, hint];
  }
  const numerics = `Numerics: ${numericsSummary(c.numerics)}.`;
  if (!("name" in r.gpu)) {
    return [
      `No GPU, so nothing was timed: which of your candidates is fastest is unknown.`,
      `Below is an untimed valid candidate (seed ${c.seed}), not the best one: it replays, fits the limits of ${r.target} and computes correct results.`,
      numerics,
      `Use it to check the hand-in flow; tune on a machine with an NVIDIA GPU to find a fast schedule.`,
    ];
  }
  const t = c.timing;
  const time = t === undefined ? "" : `: ${t.meanMs.toFixed(3)} ms ± ${t.stdMs.toFixed(3)} on ${t.device}`;
  return [`Best candidate: seed ${c.seed} (${formatDecisions(c.decisions)})${time}.`, numerics, again];
}

/** The hand-in file between markers, and what to do with it. */
export function formatHandIn(r: TuneResult, dir: string): string {
  if (r.chosen === undefined) return "";
  const name = r.traceFile;
  return [
    `----- BEGIN ${name} -----`,
    r.chosen.text.trimEnd(),
    `----- END ${name} -----`,
    `Replace the whole contents of ${dir}/${name} with the lines between BEGIN and END (or run again with --write),`,
    `then check it with \`pnpm grade --evaluate-tuned\`.`,
    "",
  ].join("\n");
}

/** After --write. */
export function formatWritten(r: TuneResult, path: string): string {
  const untimed = r.chosen?.timing === undefined ? " It is an untimed candidate: tune again on a GPU to replace it with a fast one." : "";
  return `Wrote the candidate of seed ${r.chosen?.seed ?? "?"} to ${path} (its previous contents are replaced).${untimed}\nCheck it with \`pnpm grade --evaluate-tuned\`.\n`;
}

function ms(x: number | undefined): string {
  return x === undefined ? "–" : x.toFixed(3);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

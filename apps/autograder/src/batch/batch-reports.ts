/**
 * The batch's reports over all its submissions, written into OUT: summary.csv, histogram.svg
 * (the score histogram) and pass-rates.md (per task). They are rebuilt from the outcomes, which
 * is how a resumed run, a shard and a merge of shards get theirs.
 */
import { join } from "node:path";
import type { Manifest } from "../manifest/index.js";
import { writeAtomically } from "./atomic-write.js";
import type { OutcomeSummary } from "./grade-one.js";
import { scoreHistogramSvg } from "./histogram.js";
import { numericsPassRates, passRatesMarkdown, taskPassRates } from "./pass-rates.js";
import { summaryCsv } from "./summary.js";

export const SUMMARY_FILE = "summary.csv";
export const HISTOGRAM_FILE = "histogram.svg";
export const PASS_RATES_FILE = "pass-rates.md";
/** Names in OUT that belong to the batch, never to a submission. */
export const REPORT_FILES: readonly string[] = [SUMMARY_FILE, HISTOGRAM_FILE, PASS_RATES_FILE];

export interface BatchReports {
  readonly summaryPath: string;
  readonly histogramPath: string;
  readonly passRatesPath: string;
  /** The pass-rate table (markdown), also printed at the end of the batch. */
  readonly passRates: string;
}

export async function writeSummary(out: string, outcomes: readonly OutcomeSummary[], manifest: Manifest): Promise<string> {
  const path = join(out, SUMMARY_FILE);
  await writeAtomically(path, summaryCsv(outcomes, manifest));
  return path;
}

/** Writes all three; `title` names what they cover (a shard, a merge). */
export async function writeBatchReports(out: string, outcomes: readonly OutcomeSummary[], manifest: Manifest, title?: string): Promise<BatchReports> {
  const summaryPath = await writeSummary(out, outcomes, manifest);
  const histogramPath = join(out, HISTOGRAM_FILE);
  const count = `${outcomes.length} submission${outcomes.length === 1 ? "" : "s"}`;
  await writeAtomically(histogramPath, await scoreHistogramSvg(outcomes, { title: `Scores of ${count}${title === undefined ? "" : ` (${title})`}` }));
  const passRates = passRatesMarkdown(taskPassRates(outcomes, manifest), outcomes.length, numericsPassRates(outcomes, manifest));
  const passRatesPath = join(out, PASS_RATES_FILE);
  await writeAtomically(passRatesPath, `# ${manifest.title}: pass rates${title === undefined ? "" : ` (${title})`}\n\n${passRates}`);
  return { summaryPath, histogramPath, passRatesPath, passRates };
}

/**
 * Grades every submission of a folder, one after another, and writes for each
 * `OUT/<name>/results.json` and `OUT/<name>/report.txt`, and `OUT/summary.csv` for all. A
 * submission that fails gets a failure results.json and an error row; only a failure to write the
 * output (the batch's own problem) stops the batch.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { writeResults } from "../report/gradescope.js";
import { discoverSubmissions } from "./discover.js";
import { type BatchGradeSettings, type SubmissionOutcome, gradeOne } from "./grade-one.js";
import type { BatchProgress } from "./progress.js";
import { summaryCsv } from "./summary.js";

export interface BatchOptions extends BatchGradeSettings {
  /** The folder of submissions. */
  readonly dir: string;
  /** Where the results go (created if missing). */
  readonly out: string;
  readonly progress?: BatchProgress;
}

export interface BatchResult {
  readonly outcomes: readonly SubmissionOutcome[];
  /** DIR entries that are neither folders nor .zip files. */
  readonly ignored: readonly string[];
  readonly summaryPath: string;
  readonly elapsedMs: number;
}

export const SUMMARY_FILE = "summary.csv";

export async function runBatch(opts: BatchOptions): Promise<BatchResult> {
  const started = performance.now();
  const out = resolve(opts.out);
  await mkdir(out, { recursive: true });
  // OUT may lie inside DIR: it is no submission.
  const { submissions, ignored } = await discoverSubmissions(opts.dir, [out]);
  const taskIds = opts.manifest.tasks.map((t) => t.id);
  const summaryPath = join(out, SUMMARY_FILE);
  const outcomes: SubmissionOutcome[] = [];
  // Written before the first submission and after each: an interrupted batch leaves a valid summary.
  await writeAtomically(summaryPath, summaryCsv(outcomes, taskIds));
  try {
    for (const [index, sub] of submissions.entries()) {
      opts.progress?.started(index, submissions.length, sub.name);
      const outcome = await gradeOne(sub, opts, (message) => opts.progress?.step(message));
      await writeOutcome(join(out, sub.name), outcome);
      outcomes.push(outcome);
      await writeAtomically(summaryPath, summaryCsv(outcomes, taskIds));
      opts.progress?.finished(index, submissions.length, outcome);
    }
  } finally {
    opts.progress?.close();
  }
  return { outcomes, ignored, summaryPath, elapsedMs: performance.now() - started };
}

async function writeOutcome(dir: string, outcome: SubmissionOutcome): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeResults(join(dir, "results.json"), outcome.results);
  await writeFile(join(dir, "report.txt"), outcome.reportText);
}

/** Someone watching the summary during a long batch never reads a half-written file. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const partial = `${path}.partial`;
  await writeFile(partial, text);
  await rename(partial, path);
}

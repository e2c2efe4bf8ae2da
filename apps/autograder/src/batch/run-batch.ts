/**
 * Grades the submissions of a folder, `jobs` at a time, into OUT: per submission
 * `<name>/results.json`, `<name>/report.txt` and `<name>/outcome.json` (outcome-store.ts), and
 * for the batch summary.csv, histogram.svg and pass-rates.md (batch-reports.ts). A submission
 * that fails gets a failure results.json and an error row; only a failure to write the output
 * (the batch's own problem) stops the batch.
 *
 * Resumable: a submission with an outcome.json in OUT is not graded again (unless `force`), and
 * its recorded outcome goes into the reports. One whose grading took the whole grader down twice
 * (OUT/<name>/attempts) gets an error outcome instead of a third try. With a shard, the run and its reports cover that
 * shard; `mergeBatch` rebuilds the reports of the whole folder from what OUT holds.
 */
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type BatchReports, writeBatchReports, writeSummary } from "./batch-reports.js";
import { type Submission, discoverSubmissions } from "./discover.js";
import { type BatchGradeSettings, type OutcomeSummary, type SubmissionOutcome, errorOutcome } from "./grade-one.js";
import { MAX_UNFINISHED_ATTEMPTS, readStoredOutcome, recordAttempt, storeOutcome, summaryOf } from "./outcome-store.js";
import type { BatchProgress } from "./progress.js";
import { assertPlainName } from "./plain-name.js";
import { type Shard, describeShard, selectShard } from "./shard.js";
import { type SubmissionGrader, createSubmissionGrader } from "./submission-grader.js";

export interface BatchOptions extends BatchGradeSettings {
  /** The folder of submissions. */
  readonly dir: string;
  /** Where the results go (created if missing). */
  readonly out: string;
  /** Submissions graded at once (default 1). */
  readonly jobs?: number;
  /** Grade only this part of the submissions. */
  readonly shard?: Shard;
  /** Grade submissions again even when OUT holds their outcome. */
  readonly force?: boolean;
  readonly progress?: BatchProgress;
  /** Replaces the grader createSubmissionGrader would choose (tests). */
  readonly grader?: SubmissionGrader;
}

export interface BatchResult {
  /** Every submission of the run (its shard), in name order: graded now or earlier. */
  readonly outcomes: readonly OutcomeSummary[];
  /** Names graded by this run (the rest were done already). */
  readonly gradedNow: readonly string[];
  /** outcome.json files that were not valid outcomes (their submissions were graded again). */
  readonly invalidRecords: readonly string[];
  /** DIR entries that are neither folders nor .zip files. */
  readonly ignored: readonly string[];
  readonly reports: BatchReports;
  readonly elapsedMs: number;
  /** How the submissions were graded ("worker threads", "in-process") and how many at once. */
  readonly mode: string;
  readonly concurrency: number;
}

export async function runBatch(opts: BatchOptions): Promise<BatchResult> {
  const started = performance.now();
  const out = resolve(opts.out);
  await mkdir(out, { recursive: true });
  // OUT may lie inside DIR: it is no submission.
  const discovery = await discoverSubmissions(opts.dir, [out]);
  const submissions = opts.shard === undefined ? [...discovery.submissions] : selectShard(discovery.submissions, opts.shard);

  const done = new Map<string, OutcomeSummary>();
  const invalidRecords: string[] = [];
  const toGrade: Submission[] = [];
  for (const sub of submissions) {
    const stored = opts.force === true ? { kind: "missing" as const } : await readStoredOutcome(join(out, sub.name), sub.name);
    if (stored.kind === "done") done.set(sub.name, stored.outcome);
    else {
      if (stored.kind === "invalid") invalidRecords.push(stored.why);
      toGrade.push(sub);
    }
  }
  const inOrder = (): OutcomeSummary[] => submissions.flatMap((s) => done.get(s.name) ?? []);
  // Rewritten after each submission (in turn, always from the latest outcomes): an interrupted
  // batch leaves a valid summary of what it finished.
  await writeSummary(out, inOrder(), opts.manifest);
  let summaryWrites: Promise<unknown> = Promise.resolve();

  const grader = opts.grader ?? createSubmissionGrader(opts, opts.jobs ?? 1);
  const gradedNow: string[] = [];
  opts.progress?.start(toGrade.length);
  try {
    let next = 0;
    let stopped = false;
    const lane = async (): Promise<void> => {
      for (let sub = toGrade[next++]; sub !== undefined && !stopped; sub = toGrade[next++]) {
        opts.progress?.started(sub.name);
        const name = sub.name;
        const outcome = ownOutcome(
          sub,
          await gradeUnlessItKeepsFailing(out, sub, opts.force === true, () => grader.grade(sub, (message) => opts.progress?.step(name, message))),
        );
        // Shown before it is stored: the writes below wait for event-loop turns, which a
        // submission graded in this thread (one job, or with a GPU) can hold for seconds each.
        opts.progress?.finished(outcome);
        await store(out, outcome);
        done.set(sub.name, summaryOf(outcome));
        gradedNow.push(sub.name);
        summaryWrites = summaryWrites.then(() => writeSummary(out, inOrder(), opts.manifest));
        await summaryWrites;
      }
    };
    const guarded = async (): Promise<void> => {
      try {
        await lane();
      } catch (err) {
        // The output cannot be written: the other lanes finish what they hold and take no more.
        stopped = true;
        throw err;
      }
    };
    const lanes = Array.from({ length: Math.min(grader.concurrency, toGrade.length) }, guarded);
    // Every lane runs to its end before a failure is passed on: no write is left half-way.
    const settled = await Promise.allSettled(lanes);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  } finally {
    opts.progress?.close();
    if (opts.grader === undefined) await grader.dispose();
  }
  await summaryWrites;
  const reports = await writeBatchReports(out, inOrder(), opts.manifest, opts.shard === undefined ? undefined : describeShard(opts.shard));
  return {
    outcomes: inOrder(),
    gradedNow,
    invalidRecords,
    ignored: discovery.ignored,
    reports,
    elapsedMs: performance.now() - started,
    mode: grader.mode,
    concurrency: grader.concurrency,
  };
}

/**
 * A submission whose grading took the grader down (twice) is not tried a third time on resume: it
 * gets an error outcome saying so, and the batch goes on past it.
 */
async function gradeUnlessItKeepsFailing(out: string, sub: Submission, force: boolean, grade: () => Promise<SubmissionOutcome>): Promise<SubmissionOutcome> {
  const dir = submissionDir(out, sub.name);
  await mkdir(dir, { recursive: true });
  const unfinished = await recordAttempt(dir, force);
  if (unfinished < MAX_UNFINISHED_ATTEMPTS) return grade();
  return errorOutcome(
    sub.name,
    `grading this submission was started ${unfinished} times and never finished (the grader died each time: killed, out of memory or a machine failure); it was not tried again. Run the batch with --force to try once more.`,
    0,
  );
}

/**
 * The outcome as the submission's own: one that names another submission (a grader's bug, a
 * rogue queue worker) is not stored under that name but becomes this submission's error.
 */
function ownOutcome(sub: Submission, outcome: SubmissionOutcome): SubmissionOutcome {
  if (outcome.name === sub.name) return outcome;
  return errorOutcome(sub.name, `the grader returned the outcome of ${JSON.stringify(outcome.name)} for this submission; refused`, outcome.seconds);
}

/** OUT/<name>, for a plain name only: nothing is written outside OUT. */
function submissionDir(out: string, name: string): string {
  assertPlainName(name, "submission name");
  return join(out, name);
}

async function store(out: string, outcome: SubmissionOutcome): Promise<void> {
  const dir = submissionDir(out, outcome.name);
  await mkdir(dir, { recursive: true });
  await storeOutcome(dir, outcome);
}

export interface MergeResult {
  readonly outcomes: readonly OutcomeSummary[];
  /** Submissions of DIR without an outcome in OUT (not graded yet, or by a shard not merged in). */
  readonly missing: readonly string[];
  readonly invalidRecords: readonly string[];
  readonly reports: BatchReports;
}

/**
 * The reports of every submission of DIR from the outcomes in OUT, grading nothing: after the
 * shards of a CI matrix have put their OUT folders together (see docs/architecture/autograder.md).
 */
export async function mergeBatch(opts: Pick<BatchOptions, "dir" | "out" | "manifest">): Promise<MergeResult> {
  const out = resolve(opts.out);
  const { submissions } = await discoverSubmissions(opts.dir, [out]);
  const outcomes: OutcomeSummary[] = [];
  const missing: string[] = [];
  const invalidRecords: string[] = [];
  for (const sub of submissions) {
    const stored = await readStoredOutcome(join(out, sub.name), sub.name);
    if (stored.kind === "done") outcomes.push(stored.outcome);
    else {
      missing.push(sub.name);
      if (stored.kind === "invalid") invalidRecords.push(stored.why);
    }
  }
  const reports = await writeBatchReports(out, outcomes, opts.manifest, missing.length === 0 ? undefined : `merged; ${missing.length} missing`);
  return { outcomes, missing, invalidRecords, reports };
}

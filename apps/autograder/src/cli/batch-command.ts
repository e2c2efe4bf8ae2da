/**
 * `tessera-grade batch DIR --out OUT`: grades every submission in DIR (sub-folders and .zip
 * hand-ins), `--jobs` at a time, and writes per-submission results plus the batch's reports
 * (summary.csv, histogram.svg, pass-rates.md) into OUT. Resumes where an earlier run stopped
 * unless `--force`; `--shard i/n` grades one part for a CI matrix; `--merge` grades nothing and
 * rebuilds the reports of all of DIR from OUT. Exit code 0 when the batch finished, whatever the
 * submissions scored or however many failed; 1 when the batch itself failed (or a merge found
 * submissions without results); 2 for a bad command line.
 */
import { existsSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import type { AssignmentBinding } from "../assignment.js";
import type { BatchReports } from "../batch/batch-reports.js";
import { progressReporter } from "../batch/progress.js";
import { type BatchResult, mergeBatch, runBatch } from "../batch/run-batch.js";
import { type Shard, describeShard, parseShard } from "../batch/shard.js";
import { defaultJobs } from "../batch/submission-grader.js";
import { type Manifest, loadManifest } from "../manifest/index.js";
import { queueGrader } from "../queue/queue-grader.js";
import { JobFailedError, PASSWORD_FILE_ENV, QueueConfigError, parseRedisUrl, redactUrl } from "@tessera/queue";
import type { SandboxLimits } from "../sandbox/index.js";
import { type GradeCommand, UsageError } from "./command.js";
import { batchLine } from "./specs.js";
import { chooseGpu } from "./gpu-choice.js";
import type { GradeIO } from "./io.js";
import { RUN_OPTIONS, RUN_OPTIONS_HELP, chosenAssignment, integerOption, sandboxLimitOptions, userPath } from "./options.js";

export const BATCH_OPTIONS_HELP = [
  "  DIR                a folder of submissions: each sub-folder and each .zip hand-in is one",
  "  --out OUT          where results go: OUT/<submission>/{results.json,report.txt,outcome.json},",
  "                     and for the batch OUT/summary.csv, OUT/histogram.svg, OUT/pass-rates.md",
  "  --jobs N           submissions graded at once (default: the cores, at most 8); without a GPU each",
  "                     in a worker thread of its own, with one the GPU's runs still go one at a time",
  "  --redis URL        grade through the job queue at URL (redis://HOST:PORT): each submission is a job",
  "                     for the `tessera-grade worker` processes, on this machine or others; results, resume",
  "                     and reports as without it",
  "  --redis-password-file FILE",
  "                     the Redis password, read from FILE (also TESSERA_REDIS_PASSWORD or redis://:PASSWORD@HOST)",
  "  --force            grade again submissions that already have results in OUT (default: skip them)",
  "  --shard I/N        grade only part I of N (1-based; by sorted name), e.g. for a CI matrix",
  "  --merge            grade nothing: rebuild the reports of all of DIR from the results in OUT",
  "  --no-gpu           grade as if there were no GPU (simulator numerics, no timing)",
  "  --seed N           seed of the random inputs (default 1)",
  RUN_OPTIONS_HELP,
  "",
  "Exit code: 0 when the batch finished (also when submissions failed: see summary.csv), 1 when the batch itself failed",
  "or --merge found submissions without results, 2 for a bad command line.",
].join("\n");

export interface BatchInvocation {
  readonly dir: string;
  readonly out: string;
  readonly noGpu: boolean;
  readonly seed: number;
  readonly limits: SandboxLimits;
  readonly jobs: number;
  readonly force: boolean;
  readonly shard: Shard | undefined;
  readonly merge: boolean;
  /** Grade through the job queue at this Redis URL. */
  readonly redis: string | undefined;
}

export function parseBatchArgs(args: readonly string[]): BatchInvocation {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      ...RUN_OPTIONS,
      out: { type: "string" },
      jobs: { type: "string" },
      force: { type: "boolean" },
      shard: { type: "string" },
      merge: { type: "boolean" },
      redis: { type: "string" },
      "redis-password-file": { type: "string" },
    },
  });
  const [dirArg, extra] = positionals;
  if (dirArg === undefined) throw new UsageError("batch needs the folder of submissions: tessera-grade batch DIR --out OUT");
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" (batch grades one folder of submissions)`);
  const dir = userPath(dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${dir}: no such folder of submissions`);
  if (values.out === undefined) throw new UsageError("batch needs --out OUT: the folder the results are written to");
  const out = userPath(values.out);
  if (existsSync(out) && !statSync(out).isDirectory()) throw new UsageError(`--out ${out} is a file; give a folder (it is created if missing)`);
  if (out === dir) throw new UsageError("--out must not be DIR itself: the results would mix with the submissions");
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (values.shard !== undefined && shard === undefined) throw new UsageError(`--shard must be I/N with 1 ≤ I ≤ N (e.g. 2/4), got "${values.shard}"`);
  const merge = values.merge === true;
  if (merge && (shard !== undefined || values.force === true || values.jobs !== undefined)) {
    throw new UsageError("--merge grades nothing: it takes no --shard, --force or --jobs");
  }
  if (values.redis !== undefined) {
    try {
      parseRedisUrl(values.redis, {});
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (merge) throw new UsageError("--merge grades nothing: it takes no --redis");
    // Read where the dispatcher connects.
    if (values["redis-password-file"] !== undefined) process.env[PASSWORD_FILE_ENV] = values["redis-password-file"];
    if (values.jobs !== undefined)
      throw new UsageError("--jobs is for grading on this machine; with --redis the workers grade (their --concurrency and how many run decide)");
  }
  return {
    redis: values.redis,
    dir,
    out,
    noGpu: values["no-gpu"] === true,
    seed: integerOption("--seed", values.seed, 1, 0),
    limits: sandboxLimitOptions(values),
    jobs: integerOption("--jobs", values.jobs, defaultJobs(), 1, 256),
    force: values.force === true,
    shard,
    merge,
  };
}

/** Runs the batch; the final summary goes to stdout, progress and problems to stderr. */
export async function runBatchCommand(inv: BatchInvocation, binding: AssignmentBinding, io: GradeIO): Promise<number> {
  if (inv.merge) return runMerge(inv, binding, io);
  let result: BatchResult;
  try {
    const manifest = loadManifest(binding.manifestPath);
    if (inv.redis !== undefined) return await finish(inv, await runQueuedBatch(inv, binding, manifest, io), io);
    const choice = chooseGpu(inv.noGpu);
    if (choice.reason !== undefined) io.stderr(`No GPU (${choice.reason}): numerics run in the CPU simulator and timing is skipped.\n`);
    try {
      result = await runBatch({
        dir: inv.dir,
        out: inv.out,
        binding,
        manifest,
        gpu: choice.gpu,
        ...(choice.reason === undefined ? {} : { noGpuReason: choice.reason }),
        limits: inv.limits,
        seed: inv.seed,
        jobs: inv.jobs,
        force: inv.force,
        ...(inv.shard === undefined ? {} : { shard: inv.shard }),
        progress: progressReporter(io),
      });
    } finally {
      choice.gpu?.dispose();
    }
  } catch (err) {
    io.stderr(`tessera-grade batch: the batch failed: ${describeFailure(err)}\n`);
    return 1;
  }
  return finish(inv, result, io);
}

/** The batch through the job queue: the workers choose their GPU (or the simulator). */
async function runQueuedBatch(inv: BatchInvocation, binding: AssignmentBinding, manifest: Manifest, io: GradeIO): Promise<BatchResult> {
  const grader = await queueGrader(inv.redis ?? "", { binding, manifest, noGpu: inv.noGpu, limits: inv.limits, seed: inv.seed });
  const shown = redactUrl(inv.redis ?? "");
  io.stderr(`Grading through the job queue at ${shown}: start workers with \`pnpm grade worker --redis ${shown}\`.\n`);
  try {
    return await runBatch({
      dir: inv.dir,
      out: inv.out,
      binding,
      manifest,
      limits: inv.limits,
      seed: inv.seed,
      force: inv.force,
      ...(inv.shard === undefined ? {} : { shard: inv.shard }),
      progress: progressReporter(io),
      grader,
    });
  } finally {
    await grader.dispose();
  }
}

function finish(inv: BatchInvocation, result: BatchResult, io: GradeIO): number {
  for (const why of result.invalidRecords) io.stderr(`Graded again: ${why}\n`);
  if (result.ignored.length > 0) io.stderr(`Not graded (neither a folder nor a .zip file): ${result.ignored.join(", ")}\n`);
  if (result.outcomes.length === 0)
    io.stderr(`No submissions found in ${inv.dir}${inv.shard === undefined ? "" : ` for ${describeShard(inv.shard)}`} (expected sub-folders or .zip files).\n`);
  io.stdout(`${result.reports.passRates}\n`);
  io.stdout(finalLine(inv, result));
  return 0;
}

async function runMerge(inv: BatchInvocation, binding: AssignmentBinding, io: GradeIO): Promise<number> {
  try {
    const merged = await mergeBatch({ dir: inv.dir, out: inv.out, manifest: loadManifest(binding.manifestPath) });
    for (const why of merged.invalidRecords) io.stderr(`Not counted: ${why}\n`);
    if (merged.missing.length > 0) {
      io.stderr(
        `${count(merged.missing.length, "submission")} of ${inv.dir} without results in ${inv.out}: ${merged.missing.slice(0, 20).join(", ")}${merged.missing.length > 20 ? ", …" : ""}\n`,
      );
    }
    io.stdout(`${merged.reports.passRates}\n`);
    io.stdout(`Merged ${count(merged.outcomes.length, "submission")}. ${reportPaths(inv.out, merged.reports)}\n`);
    return merged.missing.length === 0 ? 0 : 1;
  } catch (err) {
    io.stderr(`tessera-grade batch --merge: failed: ${describeFailure(err)}\n`);
    return 1;
  }
}

function finalLine(inv: BatchInvocation, result: BatchResult): string {
  const graded = result.outcomes.filter((o) => o.status === "graded").length;
  const errors = result.outcomes.length - graded;
  const skipped = result.outcomes.length - result.gradedNow.length;
  const scope = inv.shard === undefined ? "" : ` (${describeShard(inv.shard)})`;
  const how =
    result.gradedNow.length === 0
      ? ""
      : result.mode === "queue"
        ? `, through the job queue at ${redactUrl(inv.redis ?? "")}`
        : `, ${result.concurrency} at a time (${result.mode})`;
  return (
    `Batch${scope} finished in ${(result.elapsedMs / 1000).toFixed(1)} s: ${count(result.outcomes.length, "submission")}, ${graded} graded, ${count(errors, "error")}` +
    `${skipped === 0 ? "" : `; ${skipped} already graded in OUT were skipped (--force grades them again)`}${how}. ` +
    `Results in ${join(shown(inv.out), "<submission>")}/{results.json,report.txt}; ${reportPaths(inv.out, result.reports)}\n`
  );
}

function reportPaths(out: string, reports: BatchReports): string {
  const name = (path: string): string => join(shown(out), relative(out, path));
  return `summary in ${name(reports.summaryPath)}, histogram in ${name(reports.histogramPath)}, pass rates in ${name(reports.passRatesPath)}.`;
}

/** OUT as the user would type it: relative to here when it lies below. */
function shown(out: string): string {
  const nearby = relative(process.cwd(), out);
  return nearby === "" ? "." : nearby.startsWith("..") ? out : nearby;
}

export const batchCommand: GradeCommand = {
  ...batchLine,
  help: BATCH_OPTIONS_HELP,
  run: async (args, io) => runBatchCommand(parseBatchArgs(args), chosenAssignment(args), io),
};

/** A file-system error (OUT not writable, disk full) needs its message; anything else is a bug: show the stack. */
function describeFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof QueueConfigError || err instanceof JobFailedError) return err.message;
  return "code" in err && typeof err.code === "string" ? err.message : (err.stack ?? err.message);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

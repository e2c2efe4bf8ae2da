/**
 * `tessera-grade batch DIR --out OUT`: grades every submission in DIR (sub-folders and .zip
 * hand-ins) and writes per-submission results plus OUT/summary.csv. Exit code 0 when the batch
 * finished, whatever the submissions scored or however many failed; 1 when the batch itself
 * failed; 2 for a bad command line.
 */
import { existsSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { type AssignmentBinding, DEFAULT_ASSIGNMENT, assignmentBinding } from "../assignment.js";
import { progressReporter } from "../batch/progress.js";
import { type BatchResult, SUMMARY_FILE, runBatch } from "../batch/run-batch.js";
import { loadManifest } from "../manifest/index.js";
import type { SandboxLimits } from "../sandbox/index.js";
import { type GradeCommand, UsageError } from "./command.js";
import { chooseGpu } from "./gpu-choice.js";
import type { GradeIO } from "./io.js";
import { RUN_OPTIONS, RUN_OPTIONS_HELP, integerOption, sandboxLimitOptions, userPath } from "./options.js";

export const BATCH_OPTIONS_HELP = [
  "  DIR                a folder of submissions: each sub-folder and each .zip hand-in is one",
  "  --out OUT          where results go: OUT/<submission>/results.json and report.txt, OUT/summary.csv",
  "  --no-gpu           grade as if there were no GPU (simulator numerics, no timing)",
  "  --seed N           seed of the random inputs (default 1)",
  RUN_OPTIONS_HELP,
  "",
  "Exit code: 0 when the batch finished (also when submissions failed: see summary.csv), 1 when the batch itself failed, 2 for a bad command line.",
].join("\n");

export interface BatchInvocation {
  readonly dir: string;
  readonly out: string;
  readonly noGpu: boolean;
  readonly seed: number;
  readonly limits: SandboxLimits;
}

export function parseBatchArgs(args: readonly string[]): BatchInvocation {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      ...RUN_OPTIONS,
      out: { type: "string" },
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
  return {
    dir,
    out,
    noGpu: values["no-gpu"] === true,
    seed: integerOption("--seed", values.seed, 1, 0),
    limits: sandboxLimitOptions(values),
  };
}


/** Runs the batch; the final summary goes to stdout, progress and problems to stderr. */
export async function runBatchCommand(inv: BatchInvocation, binding: AssignmentBinding, io: GradeIO): Promise<number> {
  let result: BatchResult;
  try {
    const manifest = loadManifest(binding.manifestPath);
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
        progress: progressReporter(io),
      });
    } finally {
      choice.gpu?.dispose();
    }
  } catch (err) {
    io.stderr(`tessera-grade batch: the batch failed: ${describeFailure(err)}\n`);
    return 1;
  }
  if (result.ignored.length > 0) io.stderr(`Not graded (neither a folder nor a .zip file): ${result.ignored.join(", ")}\n`);
  if (result.outcomes.length === 0) io.stderr(`No submissions found in ${inv.dir} (expected sub-folders or .zip files).\n`);
  io.stdout(finalLine(inv.out, result));
  return 0;
}

function finalLine(out: string, result: BatchResult): string {
  const graded = result.outcomes.filter((o) => o.status === "graded").length;
  const errors = result.outcomes.length - graded;
  const nearby = relative(process.cwd(), out);
  const shown = nearby === "" ? "." : nearby.startsWith("..") ? out : nearby;
  return (
    `Batch finished in ${(result.elapsedMs / 1000).toFixed(1)} s: ${count(result.outcomes.length, "submission")}, ${graded} graded, ${count(errors, "error")}. ` +
    `Results in ${join(shown, "<submission>")}/{results.json,report.txt}; summary in ${join(shown, SUMMARY_FILE)}.\n`
  );
}

export const batchCommand: GradeCommand = {
  name: "batch",
  usage: "batch DIR --out OUT [options]",
  summary: "grade every submission (sub-folder or .zip) in DIR; results per submission and OUT/summary.csv",
  help: BATCH_OPTIONS_HELP,
  run: async (args, io) => runBatchCommand(parseBatchArgs(args), assignmentBinding(DEFAULT_ASSIGNMENT), io),
};

/** A file-system error (OUT not writable, disk full) needs its message; anything else is a bug: show the stack. */
function describeFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return "code" in err && typeof err.code === "string" ? err.message : (err.stack ?? err.message);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

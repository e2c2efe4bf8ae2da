/**
 * `tessera-grade [options]` (`pnpm grade`): grades the student files in place (or `--dir`), prints
 * the report and writes Gradescope's results.json — also when grading itself fails, so Gradescope
 * always gets a valid file that explains what happened.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AssignmentBinding } from "../assignment.js";
import { type GradeMode, type GradeReport, gradeSubmission } from "../grade/grade-submission.js";
import { numericsVerdicts } from "../grade/numerics-verdicts.js";
import { SampledRoundsHelper } from "../grade/rounds/rounds-helper.js";
import { ManifestError, loadManifest } from "../manifest/index.js";
import { MANIFEST_HINT } from "./manifest-hint.js";
import { claimResultsFile, failureResults, writeResults } from "../report/gradescope.js";
import { formatTerminalReport } from "../report/terminal.js";
import { toGradescope } from "../report/to-gradescope.js";
import type { SandboxLimits } from "../sandbox/index.js";
import { type GradeCommand, UsageError } from "./command.js";
import { chooseGpu } from "./gpu-choice.js";
import type { GradeIO } from "./io.js";
import { RUN_OPTIONS, RUN_OPTIONS_HELP, chosenAssignment, integerOption, sandboxLimitOptions, userPath } from "./options.js";

const MODES: ReadonlyArray<{ flag: string; mode: GradeMode; help: string }> = [
  { flag: "test", mode: "test", help: "numerics only: does each part's schedule compute ReLU(A·B) + C? (no points; exit 1 if one does not)" },
  { flag: "evaluate-manual", mode: "evaluate-manual", help: "numerics and GPU time of the manual schedule" },
  { flag: "evaluate-tuned", mode: "evaluate-tuned", help: "numerics and GPU time of applyTrace in trace_submission.ts" },
  { flag: "evaluate-naive", mode: "evaluate-naive", help: "numerics and GPU time of naiveSchedule" },
];

export const GRADE_OPTIONS_HELP = [
  "  --dir DIR          the folder with the student files (default: the assignment folder)",
  ...MODES.map((m) => `  --${m.flag.padEnd(17)}${m.help}`),
  "  --show             print the IR after each part-1 task",
  "  --show-cuda        print the generated CUDA of the checked schedules",
  "  --tune             run the tuner on autoTuningSchedule (see `tessera-grade tune --help`)",
  "  --results FILE     where results.json goes (default: DIR/results.json; full grading only unless given)",
  "  --no-gpu           grade as if there were no GPU (simulator numerics, no timing)",
  "  --seed N           seed of the random inputs (default 1)",
  RUN_OPTIONS_HELP,
].join("\n");

export interface GradeInvocation {
  readonly dir: string;
  readonly mode: GradeMode;
  readonly show: boolean;
  readonly showCuda: boolean;
  readonly results: string | undefined;
  readonly noGpu: boolean;
  readonly seed: number;
  readonly limits: SandboxLimits;
}

export function parseGradeArgs(args: readonly string[], binding: AssignmentBinding): GradeInvocation {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      ...RUN_OPTIONS,
      dir: { type: "string" },
      show: { type: "boolean" },
      "show-cuda": { type: "boolean" },
      results: { type: "string" },
      ...Object.fromEntries(MODES.map((m) => [m.flag, { type: "boolean" as const }])),
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (use --dir DIR to grade another folder)`);
  const chosen = MODES.filter((m) => (values as Record<string, unknown>)[m.flag] === true);
  if (chosen.length > 1) throw new UsageError(`choose one of ${chosen.map((m) => `--${m.flag}`).join(", ")}`);
  const dir = values.dir === undefined ? binding.root : userPath(values.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--dir ${dir}: no such folder`);
  return {
    dir,
    mode: chosen[0]?.mode ?? "full",
    show: values.show === true,
    showCuda: values["show-cuda"] === true,
    results: values.results === undefined ? undefined : resultsFile(userPath(values.results)),
    noGpu: values["no-gpu"] === true,
    seed: integerOption("--seed", values.seed, 1, 0),
    limits: sandboxLimitOptions(values),
  };
}

/** `--results` names a file to write: a folder there would only fail after grading. */
function resultsFile(path: string): string {
  if (existsSync(path) && statSync(path).isDirectory()) throw new UsageError(`--results ${path} is a folder; give the path of the results.json to write`);
  return path;
}

/** Grades per `inv`, prints the report, writes results.json; returns the exit code. */
export async function runGrade(inv: GradeInvocation, binding: AssignmentBinding, io: GradeIO): Promise<number> {
  const started = performance.now();
  const resultsPath = inv.results ?? (inv.mode === "full" ? join(inv.dir, "results.json") : undefined);
  try {
    if (resultsPath !== undefined) await claimResultsFile(resultsPath);
    const report = await gradeWithChosenGpu(inv, binding, io);
    io.stdout(formatTerminalReport(report, { show: inv.show, showCuda: inv.showCuda }));
    if (resultsPath !== undefined) {
      await writeResults(resultsPath, toGradescope(report));
      io.stdout(`Gradescope results written to ${resultsPath}\n`);
    }
    return inv.mode === "test" && numericsVerdicts(report.tasks).some((v) => v.verdict === "fail") ? 1 : 0;
  } catch (err) {
    // Whatever failed, Gradescope must still get a valid results.json that says why. A manifest
    // that cannot be read is the grader's set-up, not the submission: said plainly, exit 2.
    const setUp = err instanceof ManifestError;
    const detail = setUp ? `${err.message}\n${MANIFEST_HINT}` : err instanceof Error ? (err.stack ?? err.message) : String(err);
    io.stderr(`tessera-grade: grading failed: ${detail}\n`);
    if (resultsPath !== undefined) {
      await writeResults(resultsPath, failureResults(err instanceof Error ? err.message : String(err), (performance.now() - started) / 1000));
      io.stderr(`results.json (score 0, with the reason) written to ${resultsPath}\n`);
    }
    return setUp ? 2 : 1;
  }
}

async function gradeWithChosenGpu(inv: GradeInvocation, binding: AssignmentBinding, io: GradeIO): Promise<GradeReport> {
  const manifest = loadManifest(binding.manifestPath);
  const choice = chooseGpu(inv.noGpu);
  // Without a GPU, the simulator's checks use a second core; its thread loads while the sandbox runs.
  const numericsHelper =
    choice.gpu === undefined
      ? new SampledRoundsHelper(undefined, (why) =>
          io.stderr(`… the simulator's second thread could not run its rounds (${why}); they ran in the grader's thread\n`),
        )
      : undefined;
  try {
    return await gradeSubmission({
      submissionDir: inv.dir,
      submissionName: inv.dir,
      binding,
      manifest,
      mode: inv.mode,
      gpu: choice.gpu,
      ...(choice.reason === undefined ? {} : { noGpuReason: choice.reason }),
      limits: inv.limits,
      seed: inv.seed,
      cuda: inv.showCuda,
      ...(numericsHelper === undefined ? {} : { numericsHelper }),
      onProgress: (message) => io.stderr(`… ${message}\n`),
    });
  } finally {
    choice.gpu?.dispose();
    await numericsHelper?.dispose();
  }
}

export const gradeCommand: GradeCommand = {
  name: "grade",
  usage: "[grade] [options]",
  summary: "grade the student files (the default command)",
  help: GRADE_OPTIONS_HELP,
  run: async (args, io) => {
    const binding = chosenAssignment(args);
    return runGrade(parseGradeArgs(args, binding), binding, io);
  },
};

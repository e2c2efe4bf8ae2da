/**
 * Grades one submission of a batch and turns whatever happens into an outcome: a graded report,
 * or an error with the failure results.json Gradescope would get. Never throws for a problem of
 * the submission (a broken zip, missing files, a crash while grading), so the batch goes on.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { AssignmentBinding } from "../assignment.js";
import { type GradeOptions, type GradeReport, gradeSubmission } from "../grade/grade-submission.js";
import type { GpuBackend } from "../grade/numerics-types.js";
import { type NumericsVerdictKind, numericsVerdicts } from "../grade/numerics-verdicts.js";
import { earned } from "../grade/task-grade.js";
import type { Manifest } from "../manifest/index.js";
import { type GradescopeResults, failureResults } from "../report/gradescope.js";
import { escapeControls } from "../report/student-text.js";
import { formatTerminalReport } from "../report/terminal.js";
import { toGradescope } from "../report/to-gradescope.js";
import type { SandboxLimits } from "../sandbox/index.js";
import type { Submission } from "./discover.js";
import { SubmissionError } from "./errors.js";
import { extractHandin } from "./extract.js";
import { locateSubmissionFiles } from "./locate.js";

/** What every submission of a batch is graded with. */
export interface BatchGradeSettings {
  readonly binding: AssignmentBinding;
  readonly manifest: Manifest;
  readonly gpu?: GpuBackend | undefined;
  readonly noGpuReason?: string;
  readonly limits?: SandboxLimits;
  readonly seed?: number;
  /** Overrides of the manifest's numerics settings (tests use one round). */
  readonly numerics?: GradeOptions["numerics"];
  /** Without a GPU, one submission at a time: the simulator's second thread (see GradeOptions). */
  readonly numericsHelper?: GradeOptions["numericsHelper"];
}

/**
 * A submission for a grading thread: the settings as plain data (the assignment by name, as the
 * thread loads its own binding; no GPU, which stays with the main thread).
 */
export interface WorkerGradeTask {
  readonly submission: Submission;
  readonly settings: Omit<BatchGradeSettings, "binding" | "gpu" | "numericsHelper"> & { readonly assignment: string };
}

interface OutcomeFiles {
  /** What goes to OUT/<name>/results.json. */
  readonly results: GradescopeResults;
  /** What goes to OUT/<name>/report.txt. */
  readonly reportText: string;
}

/** What one task of a graded submission earned. */
export interface TaskScore {
  readonly id: string;
  readonly points: number;
  /** What the task could award in this run (checks skipped for lack of a GPU left out). */
  readonly maxPoints: number;
}

/**
 * What the batch's own reports (summary, histogram, pass rates) need of an outcome: plain data,
 * kept as OUT/<name>/outcome.json so a later run (resume, --merge) can rebuild them.
 */
export type OutcomeSummary =
  | {
      readonly name: string;
      readonly seconds: number;
      readonly status: "graded";
      readonly score: number;
      readonly maxScore: number;
      /** Per task of the manifest, in its order. */
      readonly tasks: readonly TaskScore[];
      /** The verdict of each numerics check, by check id (0-point gates: their points say nothing). */
      readonly numerics: Readonly<Record<string, NumericsVerdictKind>>;
    }
  | { readonly name: string; readonly seconds: number; readonly status: "error"; readonly error: string };

export type SubmissionOutcome = OutcomeSummary & OutcomeFiles;

export async function gradeOne(sub: Submission, settings: BatchGradeSettings, onStep?: (message: string) => void): Promise<SubmissionOutcome> {
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  // A zip is unpacked into a private folder; a folder is graded where it is (the sandbox copies
  // the files it runs into its own private folder, and grading writes nothing into the submission).
  const scratch = sub.kind === "zip" ? await mkdtemp(join(tmpdir(), "tessera-batch-")) : undefined;
  try {
    if (scratch !== undefined) {
      onStep?.(`unpacking ${basename(sub.path)}`);
      await extractHandin(sub.path, scratch);
    }
    const dir = await locateSubmissionFiles(scratch ?? sub.path, gradedFiles(settings.manifest), basename(sub.path));
    const report = await gradeSubmission({
      submissionDir: dir,
      // The reports name the folder or zip as handed in: `dir` may be a temporary folder.
      submissionName: basename(sub.path),
      binding: settings.binding,
      manifest: settings.manifest,
      gpu: settings.gpu,
      ...(settings.noGpuReason === undefined ? {} : { noGpuReason: settings.noGpuReason }),
      ...(settings.limits === undefined ? {} : { limits: settings.limits }),
      ...(settings.seed === undefined ? {} : { seed: settings.seed }),
      ...(settings.numerics === undefined ? {} : { numerics: settings.numerics }),
      ...(settings.numericsHelper === undefined ? {} : { numericsHelper: settings.numericsHelper }),
      ...(onStep === undefined ? {} : { onProgress: onStep }),
    });
    return gradedOutcome(sub.name, report, seconds());
  } catch (err) {
    const stack = err instanceof SubmissionError || !(err instanceof Error) ? undefined : err.stack;
    // A message about an unpacked file names it in the submission, not in the temporary folder.
    const withoutScratch = (text: string): string => (scratch === undefined ? text : text.replaceAll(scratch, basename(sub.path)));
    return errorOutcome(sub.name, withoutScratch(describe(err)), seconds(), stack === undefined ? undefined : withoutScratch(stack));
  } finally {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}

/** The files the manifest's tasks read: a submission must hold at least one. */
export function gradedFiles(manifest: Manifest): string[] {
  return [...new Set(manifest.tasks.map((t) => t.file))];
}

function gradedOutcome(name: string, report: GradeReport, seconds: number): SubmissionOutcome {
  // Converted here, inside the caller's try: a report the schema rejects is this submission's error.
  const results = toGradescope(report);
  return {
    name,
    status: "graded",
    seconds,
    results,
    reportText: formatTerminalReport(report),
    score: report.score,
    maxScore: report.maxScore,
    tasks: report.tasks.map((t) => ({ id: t.task.id, points: earned(t), maxPoints: t.checks.reduce((sum, c) => sum + c.maxPoints, 0) })),
    numerics: Object.fromEntries(numericsVerdicts(report.tasks).map((v) => [v.checkId, v.verdict])),
  };
}

/**
 * `stack`: for a grader failure, kept in report.txt (for the staff; results.json shows the message
 * only). The error may quote the submission (a zip entry's name), so it is escaped.
 */
export function errorOutcome(name: string, rawError: string, seconds: number, stack?: string): SubmissionOutcome {
  const error = escapeControls(rawError);
  return {
    name,
    status: "error",
    seconds,
    error,
    results: failureResults(error, seconds),
    reportText: `Submission ${name} was not graded.\n${error}\n${stack === undefined ? "" : `\n${stack}\n`}`,
  };
}

/** Submission problems are shown as they are; anything else is a grader failure and says so. */
function describe(err: unknown): string {
  if (err instanceof SubmissionError) return err.message;
  return `grading failed: ${err instanceof Error ? err.message : String(err)}`;
}

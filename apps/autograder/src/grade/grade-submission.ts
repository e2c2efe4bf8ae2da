/**
 * Grades one submission folder: runs the student's files in the sandbox, grades the trusted
 * replays task by task (part 1 as one chain, part 2 from the submitted trace), checks numerics on
 * the GPU at full size or, without one, on sampled thread blocks of the full-size kernel in the
 * simulator, times on a GPU when there is one, and applies the manifest's scoring rules. Returns everything the reports need; writes nothing.
 */
import { basename } from "node:path";
import { codegenCuda, lower } from "@tessera/codegen";
import { Schedule } from "@tessera/schedule";
import type { AssignmentBinding } from "../assignment.js";
import { workloadSizeLabel } from "../workload-size.js";
import type { Check, Manifest, Numerics, Task } from "../manifest/index.js";
import { DEFAULT_LIMITS, type FileRun, type PreparedFile, type SandboxLimits, prepareSubmissionFile, sandboxRunMemo } from "../sandbox/index.js";
import { type ChainResult, runChain } from "./chain.js";
import { chainComposition, describeComposition, whyNotChecked } from "./composition.js";
import { excusedBy, namedMistakes } from "./numerics-blame.js";
import { describeGpuFault } from "../gpu/fault.js";
import { GpuFaultError } from "../gpu/worker/gpu-worker.js";
import { withSimulatorFinding } from "./gpu-fault-finding.js";
import { describeExit, describeJobError, describeLoadFailure } from "./job-failure.js";
import type { GpuBackend, NumericsOutcome, NumericsSample, TimingOutcome } from "./numerics-types.js";
import { replayTrace } from "./replay.js";
import type { SampledRoundsHelper } from "./rounds/rounds-helper.js";
import { warmOnSchedule } from "./rounds/warm-on-schedule.js";
import { SIMULATED_TARGET, simulatorNumerics, simulatorNumericsWith } from "./simulator-numerics.js";
import { type CheckGrade, type TaskGrade, earned, failed, passed, skipped } from "./task-grade.js";
import { timingNoise } from "./timing-noise.js";
import { type TunedScoring, scoreTunedTime } from "./tuned-score.js";
import { excessiveWork } from "./work-estimate.js";
import { workloadStart } from "./workload-start.js";

/** What to grade: everything, or one of the course's evaluate options. */
export type GradeMode = "full" | "test" | "evaluate-manual" | "evaluate-tuned" | "evaluate-naive";

/** The parts whose tasks each mode runs in the sandbox (evaluate-naive runs only `naiveSchedule`). */
const PARTS_RUN: Readonly<Record<GradeMode, readonly number[]>> = {
  full: [1, 2],
  test: [1, 2],
  "evaluate-manual": [1],
  "evaluate-tuned": [2],
  "evaluate-naive": [],
};

export interface GradeOptions {
  readonly submissionDir: string;
  /** How the reports name the submission (default: the folder's name); never a temporary path. */
  readonly submissionName?: string;
  readonly binding: AssignmentBinding;
  readonly manifest: Manifest;
  readonly mode?: GradeMode;
  /** The GPU to check and time on; without one, numerics run in the simulator and timing is skipped. */
  readonly gpu?: GpuBackend | undefined;
  /** Why there is no GPU (shown in the report). */
  readonly noGpuReason?: string;
  readonly limits?: SandboxLimits;
  /** Seed of the first numerics round (default 1: reproducible inputs). */
  readonly seed?: number;
  /** Overrides of the manifest's numerics settings (tests use fewer rounds). */
  readonly numerics?: Partial<Pick<Numerics, "rounds">>;
  /** Grade structure only: no numerics and no timing (the numerics checks say so). For fast tests of the checks. */
  readonly structureOnly?: boolean;
  /**
   * Without a GPU: a worker thread that runs part of each sampled simulator check (the same
   * outcome, on a second core). The caller starts it early (it loads its code meanwhile) and disposes of it.
   */
  readonly numericsHelper?: SampledRoundsHelper;
  /** Also generate the CUDA of the graded schedules (`--show-cuda`). */
  readonly cuda?: boolean;
  readonly onProgress?: (message: string) => void;
}

/** A schedule the run checked or timed, by role. */
export type ScheduleRole = "manual" | "tuned" | "naive" | "reference-manual" | "reference-naive";

export interface GradeReport {
  readonly mode: GradeMode;
  readonly manifest: Manifest;
  readonly submissionDir: string;
  /** The submission's name for the reports (its folder or zip, as given); submissionDir may be a temporary folder. */
  readonly submissionName: string;
  readonly tasks: readonly TaskGrade[];
  readonly score: number;
  /** Points this run could award (checks skipped for lack of a GPU are left out). */
  readonly maxScore: number;
  readonly numerics: Partial<Record<ScheduleRole, NumericsOutcome>>;
  readonly timings: Partial<Record<ScheduleRole, TimingOutcome | { readonly error: string }>>;
  readonly tunedScoring: TunedScoring | undefined;
  readonly gpu: { readonly name: string } | { readonly unavailable: string };
  /** The IR after each part-1 task the student's function completed, by task id. */
  readonly scripts: ReadonlyMap<string, string>;
  /** Generated CUDA by schedule role (with `cuda: true`). */
  readonly cuda: Partial<Record<ScheduleRole, string>>;
  readonly notes: readonly string[];
  /** What the student's code printed, per sandboxed run that printed anything (shown, never parsed). */
  readonly studentOutput: readonly StudentOutput[];
  readonly elapsedMs: number;
}

export interface StudentOutput {
  readonly file: string;
  readonly stdout: string;
  readonly stderr: string;
}

export async function gradeSubmission(opts: GradeOptions): Promise<GradeReport> {
  const started = performance.now();
  const mode = opts.mode ?? "full";
  const grader = new SubmissionGrader(opts);
  try {
    return await grader.grade(mode, started);
  } finally {
    await grader.dispose();
  }
}

class SubmissionGrader {
  private readonly files = new Map<string, Promise<PreparedFile>>();
  private readonly runs = new Map<string, Promise<FileRun>>();
  private readonly settings: Numerics;
  private readonly numerics: Partial<Record<ScheduleRole, NumericsOutcome>> = {};
  private readonly timings: Partial<Record<ScheduleRole, TimingOutcome | { readonly error: string }>> = {};
  private readonly cuda: Partial<Record<ScheduleRole, string>> = {};
  private readonly notes: string[] = [];
  private readonly studentOutput: StudentOutput[] = [];

  constructor(private readonly opts: GradeOptions) {
    this.settings = { ...opts.manifest.numerics, ...opts.numerics };
  }

  private get manifest(): Manifest {
    return this.opts.manifest;
  }

  private get limits(): SandboxLimits {
    return this.opts.limits ?? DEFAULT_LIMITS;
  }

  async grade(mode: GradeMode, started: number): Promise<GradeReport> {
    this.startEarly(mode);
    const tasks: TaskGrade[] = [];
    let scripts: ReadonlyMap<string, string> = new Map();
    let tunedScoring: TunedScoring | undefined;
    if (this.opts.gpu === undefined) this.notes.push(`No GPU, so: ${noGpuConsequence(this.settings, this.opts.binding)}`);

    if (mode === "full" || mode === "test" || mode === "evaluate-manual") {
      const part1 = await this.gradePart1();
      tasks.push(...part1.tasks);
      scripts = part1.scripts;
    }
    if (mode === "test") tasks.push(...(await this.checkPart2Numerics()));
    if (mode === "full" && this.opts.gpu !== undefined && this.opts.structureOnly !== true) {
      const reference = this.opts.binding.referenceManual(this.settings.sizes.full);
      if (reference !== undefined) await this.time("reference-manual", reference);
      const naive = this.opts.binding.solution("naiveSchedule");
      if (naive !== undefined) {
        const sch = new Schedule(this.opts.binding.workload(this.settings.sizes.full));
        naive(sch);
        await this.time("reference-naive", sch);
      }
    }
    if (mode === "full" || mode === "evaluate-tuned") {
      const part2 = await this.gradePart2();
      tasks.push(...part2.tasks);
      tunedScoring = part2.scoring;
    }
    if (mode === "evaluate-naive") await this.evaluateNaive();

    const graded = mode === "full" ? tasks : [];
    const score = round2(graded.reduce((s, t) => s + earned(t), 0));
    const maxScore = round2(graded.reduce((s, t) => s + t.checks.reduce((m, c) => m + c.maxPoints, 0), 0));
    return {
      mode,
      manifest: this.manifest,
      submissionDir: this.opts.submissionDir,
      submissionName: this.opts.submissionName ?? basename(this.opts.submissionDir),
      tasks: graded.length > 0 ? graded : tasks,
      score,
      maxScore,
      numerics: this.numerics,
      timings: this.timings,
      tunedScoring,
      gpu: this.opts.gpu === undefined ? { unavailable: this.opts.noGpuReason ?? "no GPU found" } : { name: this.opts.gpu.name },
      scripts,
      cuda: this.cuda,
      notes: this.notes,
      studentOutput: this.studentOutput,
      elapsedMs: Math.round(performance.now() - started),
    };
  }

  async dispose(): Promise<void> {
    // A run started early and never read (grading stopped before it) finishes before its folder goes.
    await Promise.allSettled(this.runs.values());
    for (const f of await Promise.allSettled(this.files.values())) if (f.status === "fulfilled") await f.value.dispose();
  }

  /**
   * Starts, before part 1, what does not depend on it: bundling every file this mode runs, and
   * (without a GPU, whose timings a busy core would disturb) the sandbox runs of part 2, which
   * start from a fresh workload. Their results are read, and reported, in the usual order.
   */
  private startEarly(mode: GradeMode): void {
    const parts = PARTS_RUN[mode];
    const tasks = this.manifest.tasks.filter((t) => parts.includes(t.part));
    for (const task of tasks) void this.file(task.file).catch(() => {});
    if (this.opts.gpu !== undefined || !parts.includes(2)) return;
    for (const task of tasks) if (task.part === 2) void this.sandboxRun(task.file, task.function).catch(() => {});
  }

  /** One sandbox run of `fn` on a fresh full-size workload; started once, however often it is asked for. */
  private sandboxRun(fileName: string, fn: string): Promise<FileRun> {
    const key = `${fileName}\0${fn}`;
    let run = this.runs.get(key);
    if (run === undefined) {
      const size = this.settings.sizes.full;
      run = this.file(fileName).then((file) => file.run([{ id: fn, call: fn, start: workloadStart(this.opts.binding, size), args: [] }], this.limits));
      this.runs.set(key, run);
    }
    return run;
  }

  private file(name: string): Promise<PreparedFile> {
    let f = this.files.get(name);
    if (f === undefined) {
      f = prepareSubmissionFile(this.opts.submissionDir, name, { memo: sandboxRunMemo }).then((file) => warmOnSchedule(file, this.opts.numericsHelper));
      this.files.set(name, f);
    }
    return f;
  }

  /** Keeps what a run printed for the report (the chain leaves out runs on the reference schedule). */
  private recordPrinted(file: string, run: { readonly stdout: string; readonly stderr: string }): void {
    if (run.stdout.trim() !== "" || run.stderr.trim() !== "") this.studentOutput.push({ file, stdout: run.stdout, stderr: run.stderr });
  }

  private progress(message: string): void {
    this.opts.onProgress?.(message);
  }

  // ---- part 1 ----------------------------------------------------------------------------------

  private async gradePart1(): Promise<{ tasks: TaskGrade[]; scripts: ReadonlyMap<string, string> }> {
    const part1 = this.manifest.tasks.filter((t) => t.part === 1);
    const chained = part1.filter((t) => t.start === "previous-task");
    const chain = await this.runChain(chained);
    const graded = new Map<Task, TaskGrade>(chain.tasks.map((g) => [g.task, g]));

    const numericsTask = part1.find((t) => t.start === "none" && t.checks.some((c) => c.kind === "numerics"));
    const composition = chainComposition(chained, chain.tasks, chain.replaced, chain.reset);
    const ranAny = composition.yours.length > 0;
    const structureOnly = this.opts.structureOnly === true;
    this.notes.push(...chain.notes);
    let numerics: NumericsOutcome | undefined;
    if (ranAny && !structureOnly && chain.incomplete === undefined) {
      if (chain.replaced.length > 0) this.notes.push(`The manual schedule was checked with the solution's version of: ${chain.replaced.join(", ")}.`);
      numerics = await this.checkNumerics("manual", chain.composed);
      if (this.opts.cuda === true) this.cuda.manual = this.generateCuda(chain.composed);
      if (numerics.passed && this.opts.mode !== "test") await this.time("manual", chain.composed);
    }
    if (numericsTask !== undefined) {
      const checks = numericsTask.checks.map((check) =>
        structureOnly
          ? skipped(check, STRUCTURE_ONLY)
          : chain.incomplete !== undefined
            ? skipped(check, `not checked: ${chain.incomplete}`)
            : ranAny
              ? this.numericsCheck(check, numerics, `checked: ${describeComposition(composition)}`)
              : skipped(check, `not checked: ${whyNotChecked(composition)}`),
      );
      graded.set(numericsTask, { task: numericsTask, checks, notes: [] });
    }
    let tasks = part1.flatMap((t) => graded.get(t) ?? []);
    const mistakes = namedMistakes(chain.tasks);
    if (numerics !== undefined && !numerics.passed) {
      if (mistakes.length === 0) tasks = zeroPart(tasks, `part 1 scores 0: ${wrongBecause("manual", numerics, this.opts.binding)}`);
      else tasks = tasks.map((t) => (t.task === numericsTask ? { ...t, notes: [...t.notes, excusedBy(mistakes)] } : t));
    }
    return { tasks, scripts: chain.scripts };
  }

  private async runChain(tasks: readonly Task[]): Promise<ChainResult> {
    const first = tasks[0];
    if (first === undefined)
      return {
        tasks: [],
        composed: new Schedule(this.opts.binding.workload(this.settings.sizes.full)),
        replaced: [],
        reset: [],
        scripts: new Map(),
        notes: [],
      };
    this.progress(`running ${first.file} (${tasks.map((t) => t.function).join(", ")}) in the sandbox`);
    const file = await this.file(first.file);
    return runChain(
      { manifest: this.manifest, binding: this.opts.binding, file, limits: this.limits, onPrinted: (run) => this.recordPrinted(file.file, run) },
      tasks,
    );
  }

  // ---- part 2 ----------------------------------------------------------------------------------

  private async gradePart2(): Promise<{ tasks: TaskGrade[]; scoring: TunedScoring | undefined }> {
    const out: TaskGrade[] = [];
    let scoring: TunedScoring | undefined;
    for (const task of this.manifest.tasks.filter((t) => t.part === 2)) {
      const replay = await this.runFresh(task);
      if (!replay.ok) {
        out.push({ task, error: replay.error, checks: task.checks.map((c) => this.notGraded(c, "not graded (see the error above)")), notes: [] });
        continue;
      }
      if (replay.schedule.trace.instructions.length === 0) {
        out.push({
          task,
          error: unchangedScheduleError(task),
          checks: task.checks.map((c) => this.notGraded(c, "not graded (see the error above)")),
          notes: [],
        });
        continue;
      }
      const wantsNumerics = this.opts.structureOnly !== true && task.checks.some((c) => c.kind === "numerics" || c.kind === "tuned-time");
      const numerics = wantsNumerics ? await this.checkNumerics("tuned", replay.schedule) : undefined;
      if (this.opts.cuda === true) this.cuda.tuned = this.generateCuda(replay.schedule);
      const checks: CheckGrade[] = [];
      for (const check of task.checks) {
        if (check.kind === "trace-replays") checks.push(passed(check));
        else if (check.kind === "numerics") checks.push(this.numericsCheck(check, numerics));
        else if (check.kind === "tuned-time") {
          const r = await this.tunedTimeCheck(check, replay.schedule, numerics);
          checks.push(r.grade);
          scoring = r.scoring ?? scoring;
        } else checks.push(failed(check, `the check kind "${check.kind}" is not graded in part 2`));
      }
      const grade: TaskGrade = { task, checks, notes: [] };
      out.push(
        numerics !== undefined && !numerics.passed ? zeroPart([grade], `part 2 scores 0: ${wrongBecause("tuned", numerics, this.opts.binding)}`)[0]! : grade,
      );
    }
    return { tasks: out, scoring };
  }

  /** `--test`: the numerics of each part-2 task only (no other check, no timing). */
  private async checkPart2Numerics(): Promise<TaskGrade[]> {
    const out: TaskGrade[] = [];
    for (const task of this.manifest.tasks.filter((t) => t.part === 2)) {
      const checks = task.checks.filter((c) => c.kind === "numerics");
      if (checks.length === 0) continue;
      const replay = await this.runFresh(task);
      if (!replay.ok || replay.schedule.trace.instructions.length === 0) {
        const error = replay.ok ? unchangedScheduleError(task) : replay.error;
        out.push({ task, error, checks: checks.map((c) => skipped(c, "not checked (see the error above)")), notes: [] });
        continue;
      }
      const numerics = await this.checkNumerics("tuned", replay.schedule);
      out.push({ task, checks: checks.map((c) => this.numericsCheck(c, numerics)), notes: [] });
    }
    return out;
  }

  /**
   * A check that could not be graded: failed, except timing without a GPU, which is never counted,
   * and numerics, which have nothing to judge (the failed check before them names the mistake).
   */
  private notGraded(check: Check, feedback: string): CheckGrade {
    if (check.kind === "tuned-time" && this.opts.gpu === undefined)
      return skipped(check, `needs a GPU: timing skipped (${check.points} pt not counted in this run)`);
    if (check.kind === "numerics") return skipped(check, "not checked: there is no schedule to check (see the error above)");
    return failed(check, feedback);
  }

  private async tunedTimeCheck(check: Check, sch: Schedule, numerics: NumericsOutcome | undefined): Promise<{ grade: CheckGrade; scoring?: TunedScoring }> {
    if (this.opts.structureOnly === true) return { grade: skipped(check, STRUCTURE_ONLY) };
    const gpu = this.opts.gpu;
    // Without a GPU the check is always left out, so every submission is graded out of the same total.
    if (gpu === undefined) {
      const wouldFail = numerics === undefined || !numerics.passed ? "; the tuned schedule must first compute correct results" : "";
      return { grade: skipped(check, `needs a GPU: timing skipped (${check.points} pt not counted in this run)${wouldFail}`) };
    }
    if (numerics === undefined || !numerics.passed) return { grade: failed(check, "not timed: the tuned schedule must compute correct results first") };
    const timing = await this.time("tuned", sch);
    if ("error" in timing) return { grade: failed(check, `timing failed: ${timing.error}`) };
    const hasOwnTable = gpu.key !== undefined && this.manifest.tunedScore?.thresholds[gpu.key] !== undefined;
    // Scaling needs the reference manual time from this run (full grading has it already).
    const referenceSchedule =
      hasOwnTable || this.timings["reference-manual"] !== undefined ? undefined : this.opts.binding.referenceManual(this.settings.sizes.full);
    if (referenceSchedule !== undefined) await this.time("reference-manual", referenceSchedule);
    const reference = this.timings["reference-manual"];
    const referenceManualMs = reference !== undefined && "meanMs" in reference ? reference.meanMs : undefined;
    if (!hasOwnTable && referenceManualMs === undefined) {
      const why =
        reference === undefined ? "is not part of this grader (a student's copy carries no solution; the course's grader has it)" : "could not be timed";
      return { grade: failed(check, `the reference manual schedule ${why}, so the thresholds cannot be scaled for this GPU`) };
    }
    const scoring = scoreTunedTime(timing.meanMs, { name: gpu.name, key: gpu.key, referenceManualMs }, this.manifest);
    const rows = scoring.rows.map((r) => `≤ ${r.maxMs.toFixed(2)} ms: ${r.points} pt`).join(", ");
    const noise = timingNoise(timing);
    const noisy = noise === undefined ? "" : ` (a noisy measurement: ${noise}; grade again if it matters)`;
    const feedback = `${timing.meanMs.toFixed(3)} ms on ${gpu.name}${noisy}: ${scoring.points} of ${check.points} pt (${rows}); ${scoring.explanation}`;
    const grade: CheckGrade = { check, status: scoring.points > 0 ? "passed" : "failed", points: scoring.points, maxPoints: check.points, feedback };
    return { grade, scoring };
  }

  // ---- naive -----------------------------------------------------------------------------------

  private async evaluateNaive(): Promise<void> {
    const task = this.manifest.tasks.find((t) => t.part === 1 && t.start === "previous-task");
    const file = task?.file ?? this.opts.binding.defaultFile;
    const replay = await this.runFunction(file, "naiveSchedule");
    if (!replay.ok) {
      this.notes.push(`naiveSchedule could not be evaluated: ${replay.error}`);
      return;
    }
    const numerics = await this.checkNumerics("naive", replay.schedule);
    if (this.opts.cuda === true) this.cuda.naive = this.generateCuda(replay.schedule);
    if (numerics.passed) await this.time("naive", replay.schedule);
  }

  // ---- shared steps ----------------------------------------------------------------------------

  private runFresh(task: Task): Promise<{ ok: true; schedule: Schedule } | { ok: false; error: string }> {
    return this.runFunction(task.file, task.function);
  }

  /** Calls `fn(sch)` on a fresh full-size workload in the sandbox and replays the trace. */
  private async runFunction(fileName: string, fn: string): Promise<{ ok: true; schedule: Schedule } | { ok: false; error: string }> {
    this.progress(`running ${fileName} (${fn}) in the sandbox`);
    const size = this.settings.sizes.full;
    const run = await this.sandboxRun(fileName, fn);
    this.recordPrinted(run.file, run);
    if (!run.load.ok) return { ok: false, error: describeLoadFailure(fileName, run.load, run, this.limits) };
    const result = run.results.get(fn);
    if (result === undefined) return { ok: false, error: `${fn} did not finish: ${describeExit(run, this.limits)}` };
    if (!result.ok) return { ok: false, error: describeJobError(fn, result.error) };
    const replay = replayTrace(result.trace, new Schedule(this.opts.binding.workload(size)));
    return replay.ok ? { ok: true, schedule: replay.schedule } : replay;
  }

  private async checkNumerics(role: ScheduleRole, sch: Schedule): Promise<NumericsOutcome> {
    const gpu = this.opts.gpu;
    const where =
      gpu === undefined
        ? `the simulator (sampled thread blocks of the ${workloadSizeLabel(this.opts.binding, this.settings.sizes.full)} kernel)`
        : `${gpu.name} at ${workloadSizeLabel(this.opts.binding, this.settings.sizes.full)}`;
    this.progress(`checking the ${role} schedule's numerics on ${where} (${this.settings.rounds} rounds)`);
    const req = { assignment: this.opts.binding.name, schedule: sch, settings: this.settings, seed: this.opts.seed ?? 1 };
    const helper = this.opts.numericsHelper;
    let outcome =
      gpu !== undefined
        ? (this.refuseOnGpu(sch) ?? (await gpu.numerics(req)))
        : helper !== undefined
          ? await simulatorNumericsWith(helper, req, this.opts.binding)
          : simulatorNumerics(req, this.opts.binding);
    if (outcome.fault !== undefined) outcome = withSimulatorFinding(outcome, req, this.opts.binding);
    this.numerics[role] = outcome;
    for (const note of outcome.notes ?? []) this.notes.push(`Numerics of the ${role} schedule: ${note}.`);
    return outcome;
  }

  /** A GPU run would not end in reasonable time: an outcome saying so, without running it. */
  private refuseOnGpu(sch: Schedule): NumericsOutcome | undefined {
    let why: string | undefined;
    try {
      why = excessiveWork(lower(sch, "cuda"), this.opts.binding.workload(this.settings.sizes.full));
    } catch {
      return undefined; // the backend reports lowering errors itself, in its own words
    }
    const n = this.settings.sizes.full;
    return why === undefined
      ? undefined
      : {
          passed: false,
          backend: "gpu",
          device: this.opts.gpu?.name ?? "GPU",
          size: n,
          shape: workloadSizeLabel(this.opts.binding, n),
          rounds: [],
          error: why,
        };
  }

  private async time(role: ScheduleRole, sch: Schedule): Promise<TimingOutcome | { error: string }> {
    const gpu = this.opts.gpu;
    if (gpu === undefined) return { error: "no GPU" };
    this.progress(`timing the ${role} schedule on ${gpu.name}`);
    let outcome: TimingOutcome | { error: string };
    try {
      outcome = await gpu.time(sch, this.manifest.timing, this.opts.binding.name);
    } catch (err) {
      // The course's own schedules are timed for comparison: a fault there is the grader's problem.
      const course = role === "reference-manual" || role === "reference-naive";
      outcome = {
        error:
          err instanceof GpuFaultError && course
            ? describeGpuFault(err.fault, `the course's ${role.replace("reference-", "")} schedule`)
            : err instanceof Error
              ? err.message
              : String(err),
      };
    }
    this.timings[role] = outcome;
    return outcome;
  }

  private generateCuda(sch: Schedule): string {
    try {
      return codegenCuda(lower(sch, this.opts.gpu === undefined ? SIMULATED_TARGET : "cuda")).source;
    } catch (err) {
      return `// the schedule could not be lowered: ${err instanceof Error ? err.message : String(err)}\n`;
    }
  }

  /** The numerics check's grade; `what` (which schedule was checked) follows the summary. */
  private numericsCheck(check: Check, numerics: NumericsOutcome | undefined, what?: string): CheckGrade {
    if (numerics === undefined) return skipped(check, this.opts.structureOnly === true ? STRUCTURE_ONLY : "not checked: the grader found no schedule to check");
    const feedback = what === undefined ? numericsSummary(numerics) : `${numericsSummary(numerics)}; ${what}`;
    return numerics.passed ? passed(check, feedback) : failed(check, feedback);
  }
}

const STRUCTURE_ONLY = "not checked: structure-only grading (numerics and timing off)";

/** One line: where it ran and how it went. */
export function numericsSummary(n: NumericsOutcome): string {
  const size = n.shape;
  const where = n.sample === undefined ? `${n.device}, ${size}` : `${n.device}, ${sampledBlocks(n.sample, size)}`;
  if (n.error !== undefined) return `${n.error} (${where})`;
  const bad = n.rounds.find((r) => r.mismatches > 0);
  if (bad !== undefined) {
    return `round ${n.rounds.indexOf(bad) + 1}: ${bad.mismatches} of ${bad.elements} outputs wrong${bad.unwritten > 0 ? ` (${bad.unwritten} never written)` : ""}; first: ${bad.firstMismatch ?? "?"} (${where})`;
  }
  const maxErr = Math.max(0, ...n.rounds.map((r) => r.maxAbsError));
  const what = n.sample === undefined ? "correct" : `correct on all ${n.sample.elements} elements the sampled blocks wrote`;
  const coverage = n.sample?.coverage === undefined ? "" : `; ${n.sample.coverage}`;
  return `${what} in ${n.rounds.length} rounds of random inputs, max |error| ${maxErr.toExponential(2)} (${where})${coverage}`;
}

/** "23 of the 1024 thread blocks of the 2048×2048×2048 kernel", or "all 16 thread blocks of the … kernel, in each of 5 rounds" where the grid runs whole. */
function sampledBlocks(s: NumericsSample, size: string): string {
  if (s.distinctBlocks < s.gridBlocks) return `${s.distinctBlocks} of the ${s.gridBlocks} thread blocks of the ${size} kernel`;
  const rounds = Math.round(s.blocks / s.gridBlocks);
  return `all ${s.gridBlocks} thread blocks of the ${size} kernel${rounds > 1 ? `, in each of ${rounds} rounds` : ""}`;
}

function unchangedScheduleError(task: Task): string {
  return `${task.function} does not change the schedule (it is still the handed-out empty function): paste the applyTrace that \`pnpm grade --tune\` prints`;
}

function wrongBecause(which: string, n: NumericsOutcome, binding: AssignmentBinding): string {
  return n.error === undefined
    ? `the ${which} schedule does not compute ${binding.numerics.formula} correctly`
    : `the ${which} schedule could not be built or run (see above)`;
}

function noGpuConsequence(settings: Numerics, binding: AssignmentBinding): string {
  const full = workloadSizeLabel(binding, settings.sizes.full);
  return `numerics run in the CPU simulator on a sample of the thread blocks of the ${full} kernel (each block complete); timing is skipped and its points are neither awarded nor lost.`;
}

/** Every check of `tasks` scores 0, with the reason added to its feedback. */
function zeroPart(tasks: TaskGrade[], reason: string): TaskGrade[] {
  return tasks.map((t) => ({
    ...t,
    checks: t.checks.map((c) =>
      c.points === 0 ? c : { ...c, status: "failed" as const, points: 0, feedback: c.feedback === "" ? reason : `${c.feedback}; ${reason}` },
    ),
    notes: [...t.notes, reason],
  }));
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

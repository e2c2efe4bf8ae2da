/**
 * Part 1: the tasks that build one schedule in turn (`start: "previous-task"`). The student's
 * functions run in the sandbox; each task is graded on the trusted replay of the schedule right
 * after it, and the student's schedule is kept whether or not its checks pass: later tasks and the
 * numerics judge the student's own work, and the checks judge each task relative to what it
 * started from, so one mistake costs only the check that names it.
 *
 * Only a task that leaves no schedule (its function throws, is stopped, the file does not load, or
 * its trace cannot be replayed) is replaced by the solution's version; the tasks after it then run
 * again in a fresh sandbox starting from that schedule (sent as TVMScript). The stand-in must pass
 * the failed task's own checks; where the solution's function does not fit the student's earlier
 * tasks, the solution's versions of those are used as well.
 *
 * A run that starts from a stand-in runs the student's code on the solution's IR, so anything the
 * student's code can put into the report there (an error's message or stack, a replay error naming
 * the IR, what it printed, the IR for `--show`) could carry the solution out: all of it is withheld
 * and the report says why.
 */
import { BlockRV, Schedule } from "@tessera/schedule";
import type { AssignmentBinding } from "../assignment.js";
import { isStructural, programView, runStructuralCheck } from "../checks/index.js";
import type { Manifest, Task } from "../manifest/index.js";
import type { FileRun, Job, JobStart, PreparedFile, SandboxLimits } from "../sandbox/index.js";
import { describeExit, describeJobError, describeLoadFailure } from "./job-failure.js";
import { replayTrace } from "./replay.js";
import { SpeculativeRuns } from "./speculative-runs.js";
import { describeErrorOnReference, describeExitOnReference, withheldBecause } from "./withheld-errors.js";
import { jobArgs, trustedArgs } from "./task-args.js";
import { type CheckGrade, type IncompleteReason, type TaskGrade, failed, passed } from "./task-grade.js";
import { workloadStart } from "./workload-start.js";

export interface ChainResult {
  readonly tasks: readonly TaskGrade[];
  /** The finished schedule at full size: the student's tasks, with the solution's in place of those that left no schedule. */
  readonly composed: Schedule;
  /** Ids of the tasks whose solution version is in `composed` (those that left no schedule, and passed ones it had to rebuild), in task order. */
  readonly replaced: readonly string[];
  /** The IR after each task the student's function completed on its own schedule (for `--show`), by task id. */
  readonly scripts: ReadonlyMap<string, string>;
  /** Notes for the whole report (e.g. that printed output was withheld). */
  readonly notes: readonly string[];
  /**
   * Ids of tasks the student completed, with a mistake their own check charged, that gave way to
   * the solution's version because the student's next task could not run on them.
   */
  readonly reset: readonly string[];
  /**
   * Why `composed` is not a whole manual schedule: a task left no schedule and this grader has no
   * solution to stand in for it (a student's copy of the grader carries none).
   */
  readonly incomplete?: string;
}

export interface ChainContext {
  readonly manifest: Manifest;
  readonly binding: AssignmentBinding;
  readonly file: PreparedFile;
  readonly limits: SandboxLimits;
  /** Receives what a run printed; called only for runs that start from the student's own schedule. */
  readonly onPrinted?: (run: FileRun) => void;
  /** Whether to start, after a task failed, the run that follows if the next fails too (default true; see speculative-runs.ts). */
  readonly speculate?: boolean;
}

export async function runChain(ctx: ChainContext, tasks: readonly Task[]): Promise<ChainResult> {
  const runs = new SpeculativeRuns(ctx.file, ctx.limits);
  try {
    return await gradeChain(ctx, tasks, runs);
  } finally {
    await runs.close();
  }
}

async function gradeChain(ctx: ChainContext, tasks: readonly Task[], runs: SpeculativeRuns): Promise<ChainResult> {
  const { manifest, binding } = ctx;
  const tiles = manifest.manual.tileSizes;
  const size = manifest.numerics.sizes.full;
  const initial = new Schedule(binding.workload(size));
  const grades: TaskGrade[] = [];
  /** Tasks that left no schedule, which the solution stood in for. */
  const replaced: string[] = [];
  /** Tasks that completed, but whose schedule gave way to the solution's because the solution's next task did not fit it. */
  const rebuilt: string[] = [];
  /** Completed tasks with a charged mistake that the student's next task could not run on (see retryOnReference). */
  const reset: string[] = [];
  const scripts = new Map<string, string>();
  const notes: string[] = [];
  let state = initial;
  let next = 0;
  /** The stand-in computed for a guess (see guessNextFails), kept for when the guess comes true. */
  let guessed: { k: number; before: Schedule; standIn: { schedule: Schedule; fromScratch: boolean } } | undefined;
  /**
   * The solution's task `k` on `before`. The tasks after `k` are graded on the result, so it must
   * pass task k's own checks: when the solution's function throws there or leaves a schedule
   * that does not (the student's earlier tasks are shaped differently from the solution's, e.g.
   * with an extra loop), the solution's tasks 0..k are applied from scratch.
   */
  const standInSchedule = (k: number, before: Schedule): { schedule: Schedule; fromScratch: boolean } => {
    if (guessed?.k === k && guessed.before === before) return guessed.standIn;
    const task = tasks[k]!;
    try {
      const s = before.copy();
      const returned = applySolution(ctx, task, s);
      if (gradeStructure(task, s, before, tiles, returnedBlockNames(s, returned)).every((c) => c.status === "passed"))
        return { schedule: s, fromScratch: false };
    } catch {
      // rebuilt from scratch below
    }
    const s = new Schedule(binding.workload(size));
    for (let t = 0; t <= k; t++) applySolution(ctx, tasks[t]!, s);
    return { schedule: s, fromScratch: true };
  };
  const standIn = (k: number, before: Schedule): Schedule => {
    replaced.push(tasks[k]!.id);
    const { schedule, fromScratch } = standInSchedule(k, before);
    if (fromScratch) for (const t of tasks.slice(0, k)) if (!replaced.includes(t.id) && !rebuilt.includes(t.id)) rebuilt.push(t.id);
    return schedule;
  };
  /** The jobs of the segment that starts at task `from` on `start`. */
  const segmentJobs = (from: number, start: JobStart): Job[] =>
    tasks.slice(from).map((task, k) => ({ id: task.id, call: task.function, start: k === 0 ? start : { kind: "previous" }, args: jobArgs(task.args, tiles) }));
  /**
   * While the segment starting at task `k` on `start` runs, starts the run that would follow if
   * task `k` failed too (on the solution's stand-in for it): one task failing after another
   * usually means the next will as well. Only the run's wait is saved; see speculative-runs.ts.
   */
  const guessNextFails = (k: number, start: Schedule): void => {
    if (ctx.speculate === false || !canStandIn || k + 1 >= tasks.length) return;
    try {
      guessed = { k, before: start, standIn: standInSchedule(k, start) };
    } catch {
      return;
    }
    runs.prefetch(segmentJobs(k + 1, { kind: "script", script: guessed.standIn.schedule.script() }));
  };

  const canStandIn = tasks.every((t) => binding.solution(t.function) !== undefined);
  /**
   * Set once a task left no schedule and there is no solution to stand in for it (a student's copy
   * of the grader): the later tasks then run on the student's schedule without that task's work,
   * so their errors are shown but what they complete is not graded here.
   */
  let incomplete: string | undefined;
  /** After task `index` left no schedule: the solution's version of it, or (without one) the schedule before it. */
  const continueAfter = (index: number, before: Schedule): Schedule => {
    if (canStandIn) return standIn(index, before);
    incomplete ??= noStandInReason(tasks[index]!);
    return before;
  };

  /**
   * The student's task `index` threw on the student's own schedule, which carries a mistake an
   * earlier check already charged: it runs again, alone, on the solution's version of the tasks
   * before it, and is graded there (one mistake costs once). Undefined when it fails there too.
   */
  const retryOnReference = async (index: number, ownError: string): Promise<{ grade: TaskGrade; schedule: Schedule } | undefined> => {
    const task = tasks[index]!;
    const base = new Schedule(binding.workload(size));
    try {
      for (const earlier of tasks.slice(0, index)) applySolution(ctx, earlier, base);
    } catch {
      return undefined;
    }
    const gaveWay = tasks
      .slice(0, index)
      .map((t) => t.id)
      .filter((id) => !replaced.includes(id) && !rebuilt.includes(id) && !reset.includes(id));
    const job: Job = { id: task.id, call: task.function, start: { kind: "script", script: base.script() }, args: jobArgs(task.args, tiles) };
    const run = await runs.run([job]);
    const result = run.results.get(task.id);
    if (!run.load.ok || result?.ok !== true) return undefined;
    const replay = replayTrace(result.trace, base);
    if (!replay.ok) return undefined;
    reset.push(...gaveWay);
    const where = referenceNote([...replaced, ...reset], rebuilt);
    if (run.stdout.trim() !== "" || run.stderr.trim() !== "")
      notes.push(`What your code printed while it ran ${where} is withheld, so that no part of the solution can reach the report.`);
    const note = `on your own schedule it did not complete (${ownError}): an earlier mistake, already charged by its check, left it nothing to work on, so it was graded ${where}`;
    return { grade: { task, checks: gradeStructure(task, replay.schedule, base, tiles, result.returnedBlocks), notes: [note] }, schedule: replay.schedule };
  };

  while (next < tasks.length) {
    const segment = tasks.slice(next);
    const segmentStart = state;
    // From here on the schedule contains the solution's IR: nothing the student's code says is shown.
    const onReference = replaced.length + rebuilt.length + reset.length > 0;
    const reference = onReference ? referenceNote([...replaced, ...reset], rebuilt) : undefined;
    const start: JobStart = segmentStart === initial ? workloadStart(binding, size) : { kind: "script", script: segmentStart.script() };
    const pending = runs.run(segmentJobs(next, start));
    // After a task failed, guess that the next one will too (a complete submission never pays for a guess).
    if (next > 0 && replaced.length > 0) guessNextFails(next, segmentStart);
    const run = await pending;
    if (reference === undefined) ctx.onPrinted?.(run);
    else if (run.stdout.trim() !== "" || run.stderr.trim() !== "")
      notes.push(`What your code printed while it ran ${reference} is withheld, so that no part of the solution can reach the report.`);

    if (!run.load.ok) {
      // Nothing in this file can run: every remaining task fails for the same reason.
      const why =
        reference === undefined
          ? describeLoadFailure(ctx.file.file, run.load, run, ctx.limits)
          : `${ctx.file.file} did not load (${withheldBecause(reference)})`;
      segment.forEach((task, k) => {
        grades.push(notRun(task, why, "did not complete", standInNote(replaced, rebuilt), `${ctx.file.file} did not load`));
        state = continueAfter(next + k, state);
      });
      break;
    }

    let restart = false;
    let before = segmentStart;
    for (const [k, task] of segment.entries()) {
      const index = next + k;
      const note = standInNote(replaced, rebuilt);
      const result = run.results.get(task.id);
      if (result === undefined || !result.ok) {
        const why =
          result === undefined
            ? reference === undefined
              ? `${task.function} did not finish: ${describeExit(run, ctx.limits)}`
              : describeExitOnReference(task.function, run, ctx.limits, reference)
            : reference === undefined
              ? describeJobError(task.function, result.error)
              : describeErrorOnReference(task.function, ctx.file.file, result.error, reference);
        const retried = reference === undefined && canStandIn && chargedMistakeBefore(grades) ? await retryOnReference(index, why) : undefined;
        if (retried !== undefined) {
          grades.push(retried.grade);
          state = retried.schedule;
        } else {
          grades.push(notRun(task, why, "did not complete", note, "the task's function did not complete"));
          state = continueAfter(index, before);
        }
        next = index + 1;
        restart = true;
        break;
      }
      // The child's schedule carries over between the jobs of a run: its trace starts at the segment start.
      const replay = replayTrace(result.trace, segmentStart);
      if (!replay.ok) {
        const why = reference === undefined ? replay.error : `the schedule ${task.function} recorded could not be replayed (${withheldBecause(reference)})`;
        grades.push(notRun(task, why, "could not be replayed", note, "the schedule it recorded could not be replayed"));
        state = continueAfter(index, before);
        next = index + 1;
        restart = true;
        break;
      }
      // The IR of a run on the reference schedule would show the solution's work.
      if (reference === undefined) scripts.set(task.id, replay.schedule.script());
      if (incomplete === undefined) grades.push({ task, checks: gradeStructure(task, replay.schedule, before, tiles, result.returnedBlocks), notes: note });
      else
        grades.push(
          notRun(task, `${task.function} completed, but is not graded here: ${incomplete}`, "did not complete", [], "not graded by this copy of the grader"),
        );
      state = replay.schedule;
      before = replay.schedule;
    }
    if (!restart) next = tasks.length;
  }
  const stoodIn = new Set([...replaced, ...rebuilt, ...reset]);
  const replacedIds = tasks.map((t) => t.id).filter((id) => stoodIn.has(id));
  return { tasks: grades, composed: state, replaced: replacedIds, reset, scripts, notes, ...(incomplete === undefined ? {} : { incomplete }) };
}

/** Whether a task the student completed has a failed check (a mistake already charged). */
function chargedMistakeBefore(grades: readonly TaskGrade[]): boolean {
  return grades.some((g) => g.error === undefined && g.checks.some((c) => c.status === "failed"));
}

function noStandInReason(failed: Task): string {
  return `${failed.function} left no schedule to continue from, and this copy of the grader carries no solution to stand in for it (the course's grader grades the later tasks on the solution's version)`;
}

/** Applies the solution's version of `task` to `sch` in place; returns what the function returned. */
function applySolution(ctx: ChainContext, task: Task, sch: Schedule): unknown {
  const fn = ctx.binding.solution(task.function);
  if (fn === undefined) throw new Error(`the solution has no function ${task.function}`);
  return fn(sch, ...trustedArgs(sch, task.args, ctx.manifest.manual.tileSizes));
}

/** Names of the blocks a trusted function returned (as the sandbox reports a student's), if it returned blocks. */
function returnedBlockNames(sch: Schedule, returned: unknown): string[] | undefined {
  const values = Array.isArray(returned) ? returned : [returned];
  return values.every((v) => v instanceof BlockRV) ? values.map((v) => sch.get(v as BlockRV).name) : undefined;
}

/** The task's structural checks on `after`, judged relative to `before` (the schedule the task started from). */
function gradeStructure(
  task: Task,
  after: Schedule,
  before: Schedule,
  tiles: Record<string, number>,
  returnedBlocks: readonly string[] | undefined,
): CheckGrade[] {
  const ctx = { view: programView(after.func), before: programView(before.func), tiles, functionName: task.function, returnedBlocks };
  return task.checks.filter(isStructural).map((check) => {
    const outcome = runStructuralCheck(check, ctx);
    return outcome.passed ? passed(check) : failed(check, outcome.feedback);
  });
}

/** A task with nothing to grade: `why` is its error, `reason` (why nothing was graded) each check's feedback. */
function notRun(task: Task, why: string, incomplete: IncompleteReason, notes: readonly string[], reason: string): TaskGrade {
  return { task, error: why, incomplete, checks: task.checks.filter(isStructural).map((c) => failed(c, `not graded: ${reason}`)), notes };
}

function standInNote(replaced: readonly string[], rebuilt: readonly string[]): string[] {
  if (replaced.length === 0) return [];
  const also = rebuilt.length === 0 ? "" : `, and of ${rebuilt.join(", ")} (your version completed, but the solution's next task does not fit it)`;
  return [`graded on top of the solution's version of ${replaced.join(", ")} (yours left no schedule: it did not complete or could not be replayed)${also}`];
}

/** "on the reference schedule (the solution's version of register-tiling stood in)". */
function referenceNote(replaced: readonly string[], rebuilt: readonly string[]): string {
  return `on the reference schedule (the solution's version of ${[...rebuilt, ...replaced].join(", ")} stood in)`;
}

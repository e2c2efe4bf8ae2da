/**
 * Part 1: the tasks that build one schedule in turn (`start: "previous-task"`). The student's
 * functions run in the sandbox; each task is graded on the trusted replay of the schedule right
 * after it. A task that fails (throws, is stopped, or misses any check) is replaced by the
 * solution's version for the tasks after it, which then run again in a fresh sandbox starting
 * from that schedule (sent as TVMScript), so one mistake costs only the task that made it. The
 * stand-in must pass the failed task's own checks; where the solution's function does not fit the
 * student's earlier tasks, the solution's versions of those are used as well.
 */
import { Schedule } from "@tessera/schedule";
import type { AssignmentBinding } from "../assignment.js";
import { isStructural, programView, runStructuralCheck } from "../checks/index.js";
import type { Manifest, Task } from "../manifest/index.js";
import type { Job, JobStart, PreparedFile, SandboxLimits } from "../sandbox/index.js";
import { describeExit, describeJobError, describeLoadFailure } from "./job-failure.js";
import { replayTrace } from "./replay.js";
import { jobArgs, trustedArgs } from "./task-args.js";
import { type CheckGrade, type TaskGrade, failed, passed } from "./task-grade.js";

export interface ChainResult {
  readonly tasks: readonly TaskGrade[];
  /** The finished schedule at full size: the student's tasks, with the solution's in place of failed ones. */
  readonly composed: Schedule;
  /** Ids of the tasks whose solution version is in `composed` (failed ones, and passed ones it had to rebuild), in task order. */
  readonly replaced: readonly string[];
  /** The IR after each task the student's function completed (for `--show`), by task id. */
  readonly scripts: ReadonlyMap<string, string>;
}

export interface ChainContext {
  readonly manifest: Manifest;
  readonly binding: AssignmentBinding;
  readonly file: PreparedFile;
  readonly limits: SandboxLimits;
}

export async function runChain(ctx: ChainContext, tasks: readonly Task[]): Promise<ChainResult> {
  const { manifest, binding } = ctx;
  const tiles = manifest.manual.tileSizes;
  const size = manifest.numerics.sizes.full;
  const initial = new Schedule(binding.workload(size));
  const grades: TaskGrade[] = [];
  /** Failed tasks the solution stood in for. */
  const replaced: string[] = [];
  /** Tasks that passed, but whose schedule gave way to the solution's because the solution's next task did not fit it. */
  const rebuilt: string[] = [];
  const scripts = new Map<string, string>();
  let state = initial;
  let next = 0;

  /**
   * The solution's task `k` on `before`. The tasks after `k` are graded on the result, so it must
   * pass task k's own checks: when the solution's function throws there or leaves a schedule
   * that does not (the student's earlier tasks passed their checks but are shaped differently from
   * the solution's, e.g. with an extra loop), the solution's tasks 0..k are applied from scratch.
   */
  const standIn = (k: number, before: Schedule): Schedule => {
    const task = tasks[k]!;
    replaced.push(task.id);
    try {
      const s = applySolution(ctx, task, before.copy());
      if (gradeStructure(task, s, tiles).every((c) => c.status === "passed")) return s;
    } catch {
      // rebuilt from scratch below
    }
    let s = new Schedule(binding.workload(size));
    for (let t = 0; t <= k; t++) s = applySolution(ctx, tasks[t]!, s);
    for (const t of tasks.slice(0, k)) if (!replaced.includes(t.id) && !rebuilt.includes(t.id)) rebuilt.push(t.id);
    return s;
  };

  while (next < tasks.length) {
    const segment = tasks.slice(next);
    const segmentStart = state;
    const start: JobStart = segmentStart === initial ? { kind: "workload", workload: manifest.workload, size } : { kind: "script", script: segmentStart.script() };
    const jobs: Job[] = segment.map((task, k) => ({
      id: task.id,
      call: task.function,
      start: k === 0 ? start : { kind: "previous" },
      args: jobArgs(task.args, tiles),
    }));
    const run = await ctx.file.run(jobs, ctx.limits);

    if (!run.load.ok) {
      // Nothing in this file can run: every remaining task fails for the same reason.
      const why = describeLoadFailure(ctx.file.file, run.load, run, ctx.limits);
      segment.forEach((task, k) => {
        grades.push(notRun(task, why, replacedNote(replaced, rebuilt), `${ctx.file.file} did not load`));
        state = standIn(next + k, state);
      });
      break;
    }

    let restart = false;
    for (const [k, task] of segment.entries()) {
      const index = next + k;
      const before = state;
      const note = replacedNote(replaced, rebuilt);
      const result = run.results.get(task.id);
      const why =
        result === undefined ? `${task.function} did not finish: ${describeExit(run, ctx.limits)}` : !result.ok ? describeJobError(task.function, result.error) : undefined;
      if (why !== undefined || result === undefined || !result.ok) {
        grades.push(notRun(task, why ?? "no result", note, "the task's function did not complete"));
        state = standIn(index, before);
        next = index + 1;
        restart = true;
        break;
      }
      // The child's schedule carries over between the jobs of a run: its trace starts at the segment start.
      const replay = replayTrace(result.trace, segmentStart);
      if (!replay.ok) {
        grades.push(notRun(task, replay.error, note, "the schedule it recorded could not be replayed"));
        state = standIn(index, before);
        next = index + 1;
        restart = true;
        break;
      }
      scripts.set(task.id, replay.schedule.script());
      const checks = gradeStructure(task, replay.schedule, tiles);
      grades.push({ task, checks, notes: note });
      if (checks.every((c) => c.status === "passed")) {
        state = replay.schedule;
        continue;
      }
      state = standIn(index, before);
      next = index + 1;
      restart = true;
      break;
    }
    if (!restart) next = tasks.length;
  }
  const stoodIn = new Set([...replaced, ...rebuilt]);
  return { tasks: grades, composed: state, replaced: tasks.map((t) => t.id).filter((id) => stoodIn.has(id)), scripts };
}

function applySolution(ctx: ChainContext, task: Task, sch: Schedule): Schedule {
  const fn = ctx.binding.solution(task.function);
  if (fn === undefined) throw new Error(`the solution has no function ${task.function}`);
  fn(sch, ...trustedArgs(sch, task.args, ctx.manifest.manual.tileSizes));
  return sch;
}

function gradeStructure(task: Task, sch: Schedule, tiles: Record<string, number>): CheckGrade[] {
  const view = programView(sch.func);
  return task.checks.filter(isStructural).map((check) => {
    const outcome = runStructuralCheck(check, view, tiles);
    return outcome.passed ? passed(check) : failed(check, outcome.feedback);
  });
}

/** A task with nothing to grade: `why` is its error, `reason` (why nothing was graded) each check's feedback. */
function notRun(task: Task, why: string, notes: readonly string[], reason: string): TaskGrade {
  return { task, error: why, checks: task.checks.filter(isStructural).map((c) => failed(c, `not graded: ${reason}`)), notes };
}

function replacedNote(replaced: readonly string[], rebuilt: readonly string[]): string[] {
  if (replaced.length === 0) return [];
  const also = rebuilt.length === 0 ? "" : `, and of ${rebuilt.join(", ")} (your version passed its checks, but the solution's next task does not fit it)`;
  return [`graded on top of the solution's version of ${replaced.join(", ")} (your version failed)${also}`];
}


/**
 * Entry of the batch's grading threads (`--jobs N` without a GPU; bundled as
 * grade-batch-worker.mjs): grades one submission per task with the settings it is sent. The
 * grader's own work (replays, checks, simulator numerics) is CPU-bound JavaScript, so each
 * submission graded at once needs a thread of its own to use a core of its own.
 */
import { serveTasks } from "@tessera/meta-schedule/isolation";
import { type AssignmentBinding, assignmentBinding } from "../assignment.js";
import { type WorkerGradeTask, gradeOne } from "./grade-one.js";

const bindings = new Map<string, AssignmentBinding>();

serveTasks<WorkerGradeTask, Awaited<ReturnType<typeof gradeOne>>>(async ({ submission, settings }) => {
  let binding = bindings.get(settings.assignment);
  if (binding === undefined) {
    binding = assignmentBinding(settings.assignment);
    bindings.set(settings.assignment, binding);
  }
  const { assignment: _, ...rest } = settings;
  return gradeOne(submission, { ...rest, binding });
});

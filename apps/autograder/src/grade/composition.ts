/**
 * Which part-1 tasks the checked manual schedule is made of: the student's own, and those the
 * solution stood in for, each with why (see chain.ts). The solution stands in only for a task that
 * left no schedule (it did not complete, or its trace could not be replayed) and, rarely, for a
 * completed earlier task its next stand-in did not fit. The numerics feedback says it, so that a
 * student knows whose code the numerics judged, and why numerics were not checked when none of it
 * was theirs.
 */
import type { Task } from "../manifest/index.js";
import type { IncompleteReason, TaskGrade } from "./task-grade.js";

export type StandInReason = IncompleteReason | "did not fit the solution's next task" | "had a mistake your next task could not run on";

export interface Composition {
  /** Tasks whose student version is in the schedule, in task order. */
  readonly yours: readonly Task[];
  /** Tasks the solution's version stands in for, in task order. */
  readonly standIns: readonly { readonly task: Task; readonly why: StandInReason }[];
}

/** `tasks` (the chain, in order), their grades, and the ids of the tasks the solution stood in for. */
export function chainComposition(
  tasks: readonly Task[],
  grades: readonly TaskGrade[],
  replaced: readonly string[],
  reset: readonly string[] = [],
): Composition {
  const yours: Task[] = [];
  const standIns: { task: Task; why: StandInReason }[] = [];
  for (const task of tasks) {
    if (!replaced.includes(task.id)) {
      yours.push(task);
      continue;
    }
    const grade = grades.find((g) => g.task.id === task.id);
    const why: StandInReason = reset.includes(task.id)
      ? "had a mistake your next task could not run on"
      : grade === undefined
        ? "did not complete"
        : (grade.incomplete ?? (grade.error !== undefined ? "did not complete" : "did not fit the solution's next task"));
    standIns.push({ task, why });
  }
  return { yours, standIns };
}

/** "your sharedMemoryTiling, with the solution's registerTiling (yours did not complete)", for the numerics line. */
export function describeComposition(c: Composition): string {
  const yours = c.yours.length === 0 ? "none of your tasks" : `your ${c.yours.map((t) => t.function).join(", ")}`;
  if (c.standIns.length === 0) return `${yours} (no stand-ins)`;
  return `${yours}, with the solution's ${standInList(c)}`;
}

/** Why numerics were not checked when every task is a stand-in. */
export function whyNotChecked(c: Composition): string {
  if (c.standIns.every((s) => s.why === "did not complete")) return "none of your part-1 tasks completed";
  return `the schedule would be the solution's alone: it stands in for every part-1 task (${standInList(c)})`;
}

/** "registerTiling, cooperativeFetching (yours did not complete), writeCache (yours could not be replayed)": consecutive tasks of one reason share it. */
function standInList(c: Composition): string {
  const groups: { names: string[]; why: StandInReason }[] = [];
  for (const s of c.standIns) {
    const last = groups.at(-1);
    if (last !== undefined && last.why === s.why) last.names.push(s.task.function);
    else groups.push({ names: [s.task.function], why: s.why });
  }
  return groups.map((g) => `${g.names.join(", ")} (yours ${g.why})`).join(", ");
}

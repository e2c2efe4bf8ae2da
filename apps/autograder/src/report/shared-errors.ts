/**
 * An error several tasks share (their file does not compile or load, so each task of it fails the
 * same way) is shown once, above the tasks; each task then refers to it in one line.
 */
import type { TaskGrade } from "../grade/task-grade.js";

export interface SharedError {
  /** The full error, as every task that shares it has it. */
  readonly text: string;
  /** Its first line, for the tasks' references ("schedule.ts could not be compiled"). */
  readonly brief: string;
}

const MAX_BRIEF_CHARS = 160;

/** The errors that two or more of `tasks` have, in the order of the first task with each. */
export function sharedErrors(tasks: readonly TaskGrade[]): SharedError[] {
  const counts = new Map<string, number>();
  for (const t of tasks) if (t.error !== undefined) counts.set(t.error, (counts.get(t.error) ?? 0) + 1);
  return [...counts].filter(([, n]) => n >= 2).map(([text]) => ({ text, brief: briefOf(text) }));
}

/** What a task line says instead of repeating a shared error. */
export function sharedErrorReference(shared: SharedError, where = "see above"): string {
  return `not graded: ${shared.brief} (${where})`;
}

function briefOf(text: string): string {
  const first = text.split("\n")[0]!.replace(/:$/, "");
  return first.length <= MAX_BRIEF_CHARS ? first : `${first.slice(0, MAX_BRIEF_CHARS)}…`;
}

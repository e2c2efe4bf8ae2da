/**
 * Whether a wrong manual schedule zeroes part 1. The numerics judge the student's own schedule,
 * which now keeps its structural mistakes; a mistake a check already names (a copy left at the
 * root, thread extents that do not match) often makes the kernel unbuildable or racy, and zeroing
 * the part for it would charge that one mistake a second time. So the course's rule (a wrong
 * result scores 0 for the part) applies when no check of a task the student completed failed.
 */
import type { TaskGrade } from "./task-grade.js";

/** "task/check" of each failed structural check in the tasks the student's own function completed. */
export function namedMistakes(grades: readonly TaskGrade[]): string[] {
  return grades.filter((g) => g.error === undefined).flatMap((g) => g.checks.filter((c) => c.status === "failed").map((c) => `${g.task.id}/${c.check.id}`));
}

/** Why a numerics failure costs nothing more: it follows from mistakes the checks already charged. */
export function excusedBy(mistakes: readonly string[]): string {
  return `not zeroing part 1: your schedule has mistakes that checks above already name and charge (${mistakes.join(", ")}), and a wrong result is counted once, there`;
}

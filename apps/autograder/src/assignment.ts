/**
 * The assignments this grader knows, by name: each one's binding (workload, inputs, references,
 * solution, files; see `@tessera/course-kit`) comes from the assignment's own `./binding` entry.
 * This module is the only place that names them.
 */
import { binding as d2lTranspose } from "@tessera/assignment-d2l-transpose/binding";
import { binding as gemmReluAdd } from "@tessera/assignment-gemm-relu-add/binding";
import type { AssignmentBinding } from "@tessera/course-kit";

export type { AssignmentBinding, SolutionFunction } from "@tessera/course-kit";

const ASSIGNMENTS: ReadonlyMap<string, AssignmentBinding> = new Map([gemmReluAdd, d2lTranspose].map((b) => [b.name, b]));

/** The assignment `tessera-grade` grades when `--assignment` is not given. */
export const DEFAULT_ASSIGNMENT = gemmReluAdd.name;

export function assignmentBinding(name: string): AssignmentBinding {
  const binding = ASSIGNMENTS.get(name);
  if (binding === undefined) throw new Error(`unknown assignment "${name}" (known: ${[...ASSIGNMENTS.keys()].join(", ")})`);
  return binding;
}

export function assignmentNames(): string[] {
  return [...ASSIGNMENTS.keys()];
}

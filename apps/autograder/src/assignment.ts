/**
 * What the grader needs besides the manifest, per assignment: the workload the schedules start
 * from, the trusted solution functions (run in the grader's own process: to stand in for a failed
 * task, and as the reference schedules that calibrate timing), and where the files are.
 */
import * as gemmReluAdd from "@tessera/assignment-gemm-relu-add";
import * as gemmReluAddSolution from "@tessera/assignment-gemm-relu-add/solution";
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";

/** A solution function as the grader calls it: `(sch, ...args)`. */
export type SolutionFunction = (sch: Schedule, ...args: unknown[]) => unknown;

export interface AssignmentBinding {
  readonly name: string;
  /** The folder holding the student files (graded in place by default). */
  readonly root: string;
  readonly manifestPath: string;
  workload(size: number): PrimFunc;
  /** The solution's function of that name (tasks, `naiveSchedule`, `applyTrace`), if any. */
  solution(name: string): SolutionFunction | undefined;
  /**
   * The trusted reference manual schedule (all part-1 tasks with the course's tile sizes) at
   * `size`; undefined where the grader carries no solution (a student's handout).
   */
  referenceManual(size: number): Schedule | undefined;
}

const gemmReluAddBinding: AssignmentBinding = {
  name: gemmReluAdd.ASSIGNMENT_NAME,
  root: gemmReluAdd.assignmentRoot(),
  manifestPath: gemmReluAdd.manifestPath(),
  workload: (size) => gemmReluAddSolution.workload(size),
  solution: (name) => solutionFunction(name),
  referenceManual: (size) => {
    const manual = solutionFunction("manualSchedule") as ((size: number) => Schedule) | undefined;
    return manual?.(size);
  },
};

/**
 * A function of the solution module, looked up by name: the handout's grader is built with a
 * module that has only the course-provided ones (workload, naiveSchedule), never the tasks.
 */
function solutionFunction(name: string): SolutionFunction | undefined {
  const value: unknown = (gemmReluAddSolution as Record<string, unknown>)[name];
  return typeof value === "function" ? (value as SolutionFunction) : undefined;
}

const ASSIGNMENTS: ReadonlyMap<string, AssignmentBinding> = new Map([[gemmReluAddBinding.name, gemmReluAddBinding]]);

export const DEFAULT_ASSIGNMENT = gemmReluAddBinding.name;

export function assignmentBinding(name: string): AssignmentBinding {
  const binding = ASSIGNMENTS.get(name);
  if (binding === undefined) throw new Error(`unknown assignment "${name}" (known: ${[...ASSIGNMENTS.keys()].join(", ")})`);
  return binding;
}

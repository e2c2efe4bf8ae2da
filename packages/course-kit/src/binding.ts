/**
 * What the autograder needs from an assignment besides its grading manifest: the workload the
 * schedules start from, how to fill its inputs, the float64 reference of its output, the trusted
 * solution and where the files are. Each assignment exports one (its package's `./binding` entry);
 * the grader has no other knowledge of any assignment.
 */
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";

/** A solution function as the grader calls it: `(sch, ...args)`. */
export type SolutionFunction = (sch: Schedule, ...args: unknown[]) => unknown;

/** The float64 reference kernel on the GPU: `kernel(inputs…, double* out, int n)`, one thread per element of the n×n output. */
export interface GpuReferenceKernel {
  readonly source: string;
  readonly kernel: string;
}

/**
 * The numerics of a workload whose inputs and output are float32 n×n arrays (n: the graded size),
 * checked element by element against a float64 reference.
 */
export interface WorkloadNumerics {
  /** The workload's name in messages (`gemm_relu_add`). */
  readonly workload: string;
  /** What it computes, as messages say it (`D = ReLU(A·B) + C`). */
  readonly formula: string;
  /** The input buffers' names, in the order `inputs` returns them and the references take them. */
  readonly inputNames: readonly string[];
  /** The output buffer's name. */
  readonly output: string;
  /** The inputs of one round at size n, from `seed`, uniform in `range`. */
  inputs(n: number, seed: number, range: readonly [number, number]): Float32Array[];
  /** The whole output at size n, on the host (small sizes). */
  reference(inputs: readonly Float32Array[], n: number): Float64Array;
  /** The output's elements at `indices` (flat, row-major): `out[k]` is the output at `indices[k]`. */
  referenceAt(inputs: readonly Float32Array[], n: number, indices: ArrayLike<number>): Float64Array;
  /** The same reference on the GPU, for the full size. */
  readonly gpuReference: GpuReferenceKernel;
}

export interface AssignmentBinding {
  readonly name: string;
  /** The folder holding the student files (graded in place by default). */
  readonly root: string;
  readonly manifestPath: string;
  /** The student file a task that names none is in. */
  readonly defaultFile: string;
  workload(size: number): PrimFunc;
  readonly numerics: WorkloadNumerics;
  /** The solution's function of that name (tasks, `naiveSchedule`, `applyTrace`), if any. */
  solution(name: string): SolutionFunction | undefined;
  /**
   * The trusted reference manual schedule (all part-1 tasks with the course's tile sizes) at
   * `size`; undefined where the grader carries no solution (a student's handout).
   */
  referenceManual(size: number): Schedule | undefined;
}

/**
 * A function of a solution module, looked up by name: a handout's grader is built with a module
 * that has only the course-provided ones (workload, naiveSchedule), never the tasks.
 */
export function moduleFunction(module: object, name: string): SolutionFunction | undefined {
  const value: unknown = (module as Record<string, unknown>)[name];
  return typeof value === "function" ? (value as SolutionFunction) : undefined;
}

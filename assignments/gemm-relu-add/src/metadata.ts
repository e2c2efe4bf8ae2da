/**
 * What the assignment consists of, as data: the student files, the functions the autograder
 * calls in each (names and signatures must not change), and what is handed in.
 */

export const ASSIGNMENT_NAME = "gemm-relu-add";
export const ASSIGNMENT_TITLE = "Assignment 2: scheduling D = ReLU(A·B) + C for the GPU";

export interface ExportedFunction {
  readonly name: string;
  /** The TypeScript signature students must keep. */
  readonly signature: string;
}

export interface StudentFile {
  /** File name at the assignment root. */
  readonly file: string;
  readonly description: string;
  readonly exports: readonly ExportedFunction[];
}

export const STUDENT_FILES = [
  {
    file: "gemm_relu_add.ts",
    description: "Part 1: the five tasks of the manual schedule",
    exports: [
      { name: "workload", signature: "workload(size?: number): PrimFunc" },
      { name: "naiveSchedule", signature: "naiveSchedule(sch: Schedule): void" },
      {
        name: "sharedMemoryTiling",
        signature: "sharedMemoryTiling(sch: Schedule, tileX: number, tileY: number, tileK: number): [BlockRV, BlockRV]",
      },
      {
        name: "registerTiling",
        signature: "registerTiling(sch: Schedule, threadTileX: number, threadTileY: number, threadTileK: number): void",
      },
      {
        name: "cooperativeFetching",
        signature: "cooperativeFetching(sch: Schedule, aShared: BlockRV, bShared: BlockRV, threadExtentX: number, threadExtentY: number): void",
      },
      { name: "writeCache", signature: "writeCache(sch: Schedule): void" },
      { name: "epilogueFusion", signature: "epilogueFusion(sch: Schedule): void" },
      { name: "manualSchedule", signature: "manualSchedule(size?: number): Schedule" },
    ],
  },
  {
    file: "auto_tuning.ts",
    description: "Part 2: the search space (not handed in; its tuned result goes into trace_submission.ts)",
    exports: [{ name: "autoTuningSchedule", signature: "autoTuningSchedule(sch: Schedule): void" }],
  },
  {
    file: "trace_submission.ts",
    description: "Part 2 hand-in: the applyTrace function printed by tuning",
    exports: [{ name: "applyTrace", signature: "applyTrace(sch: Schedule): void" }],
  },
  {
    file: "feedback.txt",
    description: "Part 3: optional feedback (0 pt)",
    exports: [],
  },
] as const satisfies readonly StudentFile[];

export type StudentFileName = (typeof STUDENT_FILES)[number]["file"];

/**
 * The files in handin.zip, at its root. As in the course notebook: the part-1 source, the
 * tuned trace and the feedback; auto_tuning.ts is not graded (the trace is what is timed).
 */
export const HANDIN_FILES = ["gemm_relu_add.ts", "trace_submission.ts", "feedback.txt"] as const satisfies readonly StudentFileName[];

export const HANDIN_ARCHIVE = "handin.zip";

/** Unfinished starter functions throw an Error whose message starts with this. */
export const NOT_IMPLEMENTED_PREFIX = "TODO(";

/** Whether an error thrown by a student function is the starter's "not implemented yet". */
export function isNotImplementedError(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith(NOT_IMPLEMENTED_PREFIX);
}

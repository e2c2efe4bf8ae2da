/**
 * What a hand-in still lacks, read from the files' text (nothing is run): task functions that
 * still throw the starter's TODO error, and a trace_submission.ts whose applyTrace schedules
 * nothing (the starter's). `pnpm handin` warns about these and still writes the archive.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface UnfinishedWork {
  /** The file the warning is about (e.g. "gemm_relu_add.ts"). */
  readonly file: string;
  /** What is unfinished, in the student's terms. */
  readonly message: string;
}

/** `throw new Error("TODO(task 1): sharedMemoryTiling is not implemented yet")`, not commented out. */
const TODO_THROW = /^\s*throw\s+new\s+Error\(\s*["'`]TODO\(([^)]*)\):\s*(\w+)/;

/** The starter's TODO throws still in `source`: "task 1 (sharedMemoryTiling)", … */
export function todoThrows(source: string): string[] {
  return source.split("\n").flatMap((line) => {
    const match = TODO_THROW.exec(line);
    return match === null ? [] : [`${match[1] ?? "?"} (${match[2] ?? "?"})`];
  });
}

/**
 * Whether applyTrace calls no schedule primitive: comments removed, its text never uses its
 * `sch` parameter other than `void sch` (the starter's body).
 */
export function traceIsEmpty(source: string): boolean {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  return !/\bsch\s*\./.test(code) && !/\w+\s*\(\s*sch\b/.test(code.replace(/function\s+applyTrace\s*\(\s*sch\b/, ""));
}

/** The unfinished parts of the hand-in files in `root` (files that are missing are createHandin's error). */
export function unfinishedWork(root: string): UnfinishedWork[] {
  const found: UnfinishedWork[] = [];
  const manual = join(root, "gemm_relu_add.ts");
  if (existsSync(manual)) {
    const todos = todoThrows(readFileSync(manual, "utf8"));
    if (todos.length > 0) {
      found.push({ file: "gemm_relu_add.ts", message: `still throws its TODO error (0 points): ${todos.join(", ")}` });
    }
  }
  const trace = join(root, "trace_submission.ts");
  if (existsSync(trace) && traceIsEmpty(readFileSync(trace, "utf8"))) {
    found.push({
      file: "trace_submission.ts",
      message: "applyTrace schedules nothing, as handed out (part 2 scores 0): paste the applyTrace that `pnpm grade --tune` prints",
    });
  }
  return found;
}

/** Where the assignment's files are, for the scripts, the tests and the autograder. */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { StudentFileName } from "./metadata.js";

/**
 * The assignment folder (the parent of src/). A bundled build (the GPU device bundle) no longer
 * sits in src/, so it names the folder in TESSERA_ASSIGNMENT_ROOT.
 */
export function assignmentRoot(): string {
  const fromEnv = process.env["TESSERA_ASSIGNMENT_ROOT"];
  if (fromEnv !== undefined && fromEnv !== "") return resolve(fromEnv);
  return resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
}

/** A student file in `root` (the assignment folder by default, or a handout / extracted hand-in). */
export function studentFilePath(file: StudentFileName, root: string = assignmentRoot()): string {
  return join(root, file);
}

/** The instructor solution's folder: same file names and exports as the student files. */
export function solutionDir(root: string = assignmentRoot()): string {
  return join(root, "solution");
}

/** The grading manifest read by the autograder. */
export function manifestPath(root: string = assignmentRoot()): string {
  return join(root, "grading", "manifest.json");
}

/**
 * Checks of the benches' command lines that need nothing of the workspace: a bench reads its
 * options with these before it loads the compiler (most of a start's CPU), so that a mistake is
 * refused at once (bench-command-line.test.ts).
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";

/** `dir` resolved against `root`; a RangeError naming it when it is not a folder (for a bench's usage message). */
export function existingFolder(root: string, dir: string): string {
  const path = resolve(root, dir);
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new RangeError(`no folder ${dir} (${path})`);
  return path;
}

/** `file` resolved against the working folder; a RangeError naming it when it is not a file. */
export function existingFile(file: string): string {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new RangeError(`no file ${file} (${path})`);
  return path;
}

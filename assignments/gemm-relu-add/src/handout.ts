/**
 * Writes the student handout: every file of the assignment folder except the solution, the tests
 * and installed or built files (HANDOUT_EXCLUDED).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { AssignmentCommandError } from "./errors.js";
import { HANDOUT_EXCLUDED, assignmentRoot } from "./paths.js";

export interface HandoutOptions {
  /** Overwrite files in a non-empty target (files already there and not in the handout stay). */
  force?: boolean;
  /** The assignment folder to copy from (default: this one). */
  root?: string;
}

/** The handout's files, relative to `root`, "/"-separated and sorted. */
export function handoutFiles(root: string = assignmentRoot()): string[] {
  const excluded = new Set<string>(HANDOUT_EXCLUDED);
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join("/");
      if (dir === root && excluded.has(entry.name)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(rel);
    }
  };
  walk(root);
  return files.sort();
}

/** Copies the handout into `target`; returns the copied files (relative paths). */
export function writeHandout(target: string, opts: HandoutOptions = {}): string[] {
  const root = resolve(opts.root ?? assignmentRoot());
  const dest = resolve(target);
  if (dest === root || dest.startsWith(root + sep)) {
    throw new AssignmentCommandError(`the handout target ${dest} is inside the assignment folder ${root}; choose a folder outside it`);
  }
  if (existsSync(dest)) {
    if (!statSync(dest).isDirectory()) throw new AssignmentCommandError(`${dest} exists and is not a folder`);
    if (readdirSync(dest).length > 0 && opts.force !== true) {
      throw new AssignmentCommandError(`${dest} is not empty; pass --force to write into it anyway`);
    }
  }
  const files = handoutFiles(root);
  for (const file of files) {
    const to = join(dest, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, file), to);
  }
  return files;
}

/**
 * Writes the student handout's own files: the README (the handout text), the student files, the
 * grading manifest, and a package.json and tsconfig.json of its own (src/handout-project.ts). An
 * allow-list, so instructor tooling (scripts/, src/), the solution and the tests never ship.
 * The packed @tessera packages and the bundled grader are added by scripts/handout/main.ts.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { AssignmentCommandError } from "./errors.js";
import { type HandoutTarball, type HandoutVersions, handoutPackageJson, handoutTsconfig } from "./handout-project.js";
import { STUDENT_FILES } from "./metadata.js";
import { assignmentRoot } from "./paths.js";

export interface HandoutOptions {
  /** Overwrite files in a non-empty target (files already there and not in the handout stay). */
  force?: boolean;
  /** The assignment folder to copy from (default: this one). */
  root?: string;
}

export interface HandoutProject {
  readonly tarballs: readonly HandoutTarball[];
  readonly versions: HandoutVersions;
}

/** The files copied from the assignment folder, relative to it, sorted. */
export const HANDOUT_FILES: readonly string[] = ["README.md", "grading/manifest.json", ...STUDENT_FILES.map((f) => f.file)].sort();

/** The files written for the handout (not copied). */
export const HANDOUT_GENERATED = ["package.json", "tsconfig.json"] as const;

/** The handout's files from the assignment folder, relative paths, "/"-separated and sorted. */
export function handoutFiles(): string[] {
  return [...HANDOUT_FILES];
}

/** Refuses a target inside the assignment, a file, or a non-empty folder (unless `force`). */
export function checkHandoutTarget(target: string, opts: HandoutOptions = {}): string {
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
  return dest;
}

/** Copies the handout's files into `target` and writes its project files; returns them all (relative paths). */
export function writeHandout(target: string, project: HandoutProject, opts: HandoutOptions = {}): string[] {
  const root = resolve(opts.root ?? assignmentRoot());
  const dest = checkHandoutTarget(target, opts);
  for (const file of HANDOUT_FILES) {
    const to = join(dest, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, file), to);
  }
  writeFileSync(join(dest, "package.json"), handoutPackageJson(project.tarballs, project.versions));
  writeFileSync(join(dest, "tsconfig.json"), handoutTsconfig());
  return [...HANDOUT_FILES, ...HANDOUT_GENERATED].sort();
}

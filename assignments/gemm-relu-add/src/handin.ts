/** Builds handin.zip: the HANDIN_FILES of a student's assignment folder, at the archive's root. */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AssignmentCommandError } from "./errors.js";
import { HANDIN_ARCHIVE, HANDIN_FILES } from "./metadata.js";
import { assignmentRoot } from "./paths.js";
import { type UnfinishedWork, unfinishedWork } from "./unfinished-work.js";
import { writeZip } from "@tessera/course-kit";

export interface HandinOptions {
  /** The folder holding the student's files (default: the assignment folder). */
  root?: string;
  /** Where to write the archive (default: `<root>/handin.zip`). */
  out?: string;
}

export interface HandinResult {
  readonly archive: string;
  readonly files: readonly string[];
  /** Tasks still throwing their TODO, an untouched trace: worth a warning, not a refusal. */
  readonly unfinished: readonly UnfinishedWork[];
}

export function createHandin(opts: HandinOptions = {}): HandinResult {
  const root = resolve(opts.root ?? assignmentRoot());
  const missing = HANDIN_FILES.filter((file) => {
    const path = join(root, file);
    return !existsSync(path) || !statSync(path).isFile();
  });
  if (missing.length > 0) {
    throw new AssignmentCommandError(
      `cannot build ${HANDIN_ARCHIVE}: missing in ${root}: ${missing.join(", ")} ` + `(the hand-in needs ${HANDIN_FILES.join(", ")})`,
    );
  }
  const entries = HANDIN_FILES.map((name) => ({ name, data: readFileSync(join(root, name)) }));
  const archive = resolve(opts.out ?? join(root, HANDIN_ARCHIVE));
  writeFileSync(archive, writeZip(entries));
  return { archive, files: [...HANDIN_FILES], unfinished: unfinishedWork(root) };
}

/**
 * Where a submission's files are: at its top level, or inside its one folder (zipping the folder
 * instead of the files is the most common hand-in mistake, and harmless).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { SubmissionError } from "./errors.js";

/**
 * The folder holding at least one of `expected` (the files the grader reads): `dir` itself or its
 * single sub-folder. `label` names the submission in the error.
 */
export async function locateSubmissionFiles(dir: string, expected: readonly string[], label: string): Promise<string> {
  const top = await readdir(dir, { withFileTypes: true });
  if (holdsAny(top, expected)) return dir;
  const folders = top.filter((e) => e.isDirectory() && !e.name.startsWith(".") && e.name !== "__MACOSX");
  const only = folders[0];
  if (folders.length === 1 && only !== undefined) {
    const inner = join(dir, only.name);
    if (holdsAny(await readdir(inner, { withFileTypes: true }), expected)) return inner;
  }
  const seen = top.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
  const listing = seen.length === 0 ? "it is empty" : `it has: ${seen.slice(0, 10).join(", ")}${seen.length > 10 ? `, … (${seen.length} entries)` : ""}`;
  throw new SubmissionError(`${label}: none of ${expected.join(", ")} at its top level or inside a single folder (${listing})`);
}

function holdsAny(entries: readonly { name: string; isFile(): boolean }[], expected: readonly string[]): boolean {
  return entries.some((e) => e.isFile() && expected.includes(e.name));
}

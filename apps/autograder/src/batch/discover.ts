/**
 * Finds the submissions in a batch folder: each sub-folder, and each `*.zip` hand-in. Names are
 * the folder name or the archive name without `.zip`; they name the output folders, so they are
 * kept unique.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { REPORT_FILES } from "./batch-reports.js";

export interface Submission {
  /** Unique within the batch; the name of its output folder. */
  readonly name: string;
  readonly kind: "folder" | "zip";
  readonly path: string;
}

export interface Discovery {
  /** In name order, so batches are reproducible. */
  readonly submissions: readonly Submission[];
  /** Entries that are neither a folder nor a .zip (reported, not graded). */
  readonly ignored: readonly string[];
}

/** Output names the batch writes itself (its reports in OUT), which a submission must not take. */
const RESERVED_NAMES = new Set(REPORT_FILES);

/** Hidden entries (".git", ".DS_Store") and macOS zip residue are never submissions. */
function isNoise(name: string): boolean {
  return name.startsWith(".") || name === "__MACOSX";
}

/** Lists the submissions in `dir`; `exclude` names paths to skip (the output folder when it lies inside). */
export async function discoverSubmissions(dir: string, exclude: readonly string[] = []): Promise<Discovery> {
  const skip = new Set(exclude.map((p) => resolve(p)));
  const folders: Submission[] = [];
  const zips: Submission[] = [];
  const ignored: string[] = [];
  for (const entry of (await readdir(dir)).sort()) {
    const path = join(dir, entry);
    if (isNoise(entry) || skip.has(resolve(path))) continue;
    // stat, not the dirent type: a symlinked folder of submissions counts too.
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory() === true) folders.push({ name: entry, kind: "folder", path });
    else if (info?.isFile() === true && /\.zip$/i.test(entry)) zips.push({ name: entry.slice(0, -4), kind: "zip", path });
    else ignored.push(entry);
  }
  // Folders first: they keep their names; an archive that clashes takes its full file name.
  const taken = new Set(RESERVED_NAMES);
  const submissions = [...folders, ...zips].map((sub) => ({ ...sub, name: claimName(sub, taken) }));
  submissions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { submissions, ignored };
}

/**
 * The submission's name, or (`alice/` and `alice.zip` side by side, a folder called summary.csv)
 * its full file name, then with a counter.
 */
function claimName(sub: Submission, taken: Set<string>): string {
  const full = basename(sub.path);
  let name = taken.has(sub.name) ? full : sub.name;
  for (let n = 2; taken.has(name); n++) name = `${full}-${n}`;
  taken.add(name);
  return name;
}

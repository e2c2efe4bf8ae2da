/**
 * Unpacks a hand-in archive into a private folder, refusing anything that could write outside it
 * (absolute paths, `..`, symlinks) or that is far bigger than a hand-in of a few source files.
 * Every refusal is a SubmissionError that names the archive and the offending entry.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type ZipEntry, type ZipEntryInfo, ZipFormatError, readZip } from "@tessera/course-kit";
import { SubmissionError } from "./errors.js";

export interface HandinLimits {
  /** The archive file itself (it is read into memory whole). */
  readonly maxArchiveBytes: number;
  readonly maxEntries: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

/**
 * A hand-in is three text files of a few KB; these leave a lot of room. The sizes are checked
 * against what the archive's directory claims before anything is inflated, and readZip stops
 * inflating an entry at its claimed size: a zip bomb is refused without being expanded.
 */
export const HANDIN_LIMITS: HandinLimits = {
  maxArchiveBytes: 1024 * 1024,
  maxEntries: 200,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 8 * 1024 * 1024,
};

/** Extracts `archivePath` into the existing empty folder `destDir`; returns the relative paths written. */
export async function extractHandin(archivePath: string, destDir: string, limits: HandinLimits = HANDIN_LIMITS): Promise<string[]> {
  const label = basename(archivePath);
  const size = (await stat(archivePath)).size;
  if (size > limits.maxArchiveBytes) {
    throw new SubmissionError(`${label} is ${formatBytes(size)}; a hand-in archive may be at most ${formatBytes(limits.maxArchiveBytes)}`);
  }
  const entries = await readArchive(label, await readFile(archivePath), handinInspector(label, limits));
  const files = new Map<string, Uint8Array>();
  for (const entry of entries) {
    const path = safeEntryPath(label, entry.name);
    if (path === undefined) continue;
    if (files.has(path)) throw new SubmissionError(`${label} holds ${path} twice`);
    files.set(path, entry.data);
  }
  for (const [path, data] of files) {
    const target = join(destDir, ...path.split("/"));
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, data, { flag: "wx" });
    } catch (err) {
      // e.g. both "a" and "a/b.ts": a file where a folder must go.
      throw new SubmissionError(`${label}: cannot extract ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  return [...files.keys()];
}

/** Decides on each entry from the directory alone, before its data is inflated. */
function handinInspector(label: string, limits: HandinLimits): (entry: ZipEntryInfo) => "read" | "skip" {
  let total = 0;
  return (entry) => {
    if (entry.entryCount > limits.maxEntries) {
      throw new SubmissionError(`${label} has ${entry.entryCount} entries; a hand-in may have at most ${limits.maxEntries}`);
    }
    const path = safeEntryPath(label, entry.name);
    if (path === undefined || entry.type === "directory") return "skip";
    if (entry.type === "symlink")
      throw new SubmissionError(`${label}: entry ${JSON.stringify(entry.name)} is a symbolic link; a hand-in holds regular files only`);
    // Any other type (a FIFO, which is what Info-ZIP records for an entry zipped from stdin) is
    // written as a regular file of its data, like a file: nothing but regular files is ever created.
    if (entry.size > limits.maxFileBytes) {
      throw new SubmissionError(`${label}: ${path} is ${formatBytes(entry.size)}; a hand-in file may be at most ${formatBytes(limits.maxFileBytes)}`);
    }
    total += entry.size;
    if (total > limits.maxTotalBytes) throw new SubmissionError(`${label} unpacks to more than ${formatBytes(limits.maxTotalBytes)}`);
    return "read";
  };
}

async function readArchive(label: string, bytes: Buffer, inspect: (entry: ZipEntryInfo) => "read" | "skip"): Promise<ZipEntry[]> {
  try {
    return await readZip(bytes, { inspect });
  } catch (err) {
    if (err instanceof SubmissionError) throw err;
    if (err instanceof ZipFormatError) throw new SubmissionError(`${label}: ${err.message}`);
    throw new SubmissionError(`${label} cannot be read as a zip archive: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The entry's path, "/"-separated, or undefined for entries that carry no file (folders, macOS
 * metadata). Throws for paths that would leave the extraction folder.
 */
export function safeEntryPath(label: string, name: string): string | undefined {
  // Some Windows tools write "\" separators; treat them as separators so "..\x" is caught too.
  const path = name.replaceAll("\\", "/");
  if (path.endsWith("/")) return undefined;
  const parts = path.split("/");
  if (parts[0] === "__MACOSX" || parts.at(-1) === ".DS_Store") return undefined;
  const shown = JSON.stringify(name);
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path))
    throw new SubmissionError(`${label}: entry ${shown} has an absolute path; a hand-in holds relative paths only`);
  if (parts.includes("..")) throw new SubmissionError(`${label}: entry ${shown} points outside the archive (".." is not allowed)`);
  if (path.includes("\0")) throw new SubmissionError(`${label}: entry ${shown} has a NUL character in its name`);
  const clean = parts.filter((p) => p !== "" && p !== ".");
  if (clean.length === 0) throw new SubmissionError(`${label}: entry ${shown} has no file name`);
  return clean.join("/");
}

function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A build of the sandbox's own code (its runtime and host, built from the workspace sources when
 * no prebuilt file is found) kept on disk between grader processes, so that a local `pnpm grade`
 * does not bundle 1.4 MB of compiler sources on every start.
 *
 * A kept build is used only while every file it was built from, and every folder holding one,
 * still has the size and modification time it had: an edit, or a file added beside a source,
 * makes the next start build again. A build during which an input changed is not kept, and a kept
 * text whose digest no longer matches its record is ignored. Anything unreadable counts as absent.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A build's text and the absolute paths of the files it read. */
export interface BuiltText {
  readonly text: string;
  readonly inputs: readonly string[];
}

/** [path, mtimeMs, size]; a path that does not exist has size -1. */
type Stamp = readonly [string, number, number];

interface Record {
  readonly format: typeof FORMAT;
  readonly stamps: readonly Stamp[];
  readonly digest: string;
}

const FORMAT = 1;
/** An input modified this close to the build's start (or later) may not be what the build read. */
const SETTLE_MS = 2000;

/**
 * The text of `name`'s build: the kept one when it is still fresh, else a new build (kept in
 * `dir` for the next process when its inputs held still). `dir` undefined: always builds.
 */
export async function cachedBuild(name: string, dir: string | undefined, build: () => Promise<BuiltText>): Promise<string> {
  if (dir !== undefined) {
    const kept = readKept(dir, name);
    if (kept !== undefined) return kept;
  }
  const started = Date.now();
  const built = await build();
  if (dir !== undefined) keep(dir, name, built, started);
  return built.text;
}

function readKept(dir: string, name: string): string | undefined {
  try {
    const record = JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as Partial<Record>;
    if (record.format !== FORMAT || !Array.isArray(record.stamps) || typeof record.digest !== "string") return undefined;
    if (!record.stamps.every(([path, mtimeMs, size]) => sameStamp(stampOf(path), mtimeMs, size))) return undefined;
    const text = readFileSync(join(dir, `${name}.txt`), "utf8");
    return digestOf(text) === record.digest ? text : undefined;
  } catch {
    return undefined;
  }
}

function keep(dir: string, name: string, built: BuiltText, started: number): void {
  const paths = new Set(built.inputs);
  for (const input of built.inputs) paths.add(dirname(input));
  const stamps = [...paths].sort().map(stampOf);
  if (stamps.some(([, mtimeMs]) => mtimeMs >= started - SETTLE_MS)) return;
  const record: Record = { format: FORMAT, stamps, digest: digestOf(built.text) };
  try {
    mkdirSync(dir, { recursive: true });
    writeAtomically(join(dir, `${name}.txt`), built.text);
    writeAtomically(join(dir, `${name}.json`), JSON.stringify(record));
  } catch {
    // Not kept: the next process builds again.
  }
}

function stampOf(path: string): Stamp {
  const st = statSync(path, { throwIfNoEntry: false });
  return st === undefined ? [path, 0, -1] : [path, st.mtimeMs, st.isDirectory() ? 0 : st.size];
}

function sameStamp(now: Stamp, mtimeMs: number, size: number): boolean {
  return now[1] === mtimeMs && now[2] === size;
}

function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

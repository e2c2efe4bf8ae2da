/**
 * The repository files an autograder package carries: what git would commit (tracked files and
 * untracked ones that are not ignored), or, without git, a walk of the tree that leaves out the
 * same build output and local results.
 */
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { execa } from "execa";

export interface RepositoryFiles {
  /** "/"-separated paths relative to the repository root, sorted. */
  readonly files: readonly string[];
  readonly listedBy: "git" | "walk";
}

/** Folders that are build output or caches, never sources (also what .gitignore lists). */
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".turbo", ".git", ".device-bundle", "coverage"]);
/** Files a local run leaves behind: a student's hand-in, grading results. */
const SKIPPED_FILES = new Set(["results.json", "handin.zip", ".DS_Store"]);
/** The runtime's native build: compiled for this machine; `pnpm install` rebuilds it there. */
const SKIPPED_PATHS = new Set(["packages/runtime/build"]);

/** The nearest folder at or above `from` with a pnpm-workspace.yaml. */
export function findRepositoryRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml in ${from} or any folder above it: not inside the Tessera repository`);
  }
}

/** Lists the files to package; `exclude` holds absolute paths left out (the package being written). */
export async function listRepositoryFiles(root: string, exclude: readonly string[] = []): Promise<RepositoryFiles> {
  const excluded = new Set(exclude.map((p) => relative(root, resolve(p)).split(sep).join("/")));
  const fromGit = await gitFiles(root);
  const candidates = fromGit ?? (await walk(root, ""));
  const files: string[] = [];
  for (const path of candidates) {
    if (excluded.has(path) || isSkipped(path)) continue;
    // git lists tracked files deleted from the work tree, and symlinks to folders: regular files only.
    const info = await stat(join(root, path)).catch(() => undefined);
    if (info?.isFile() === true) files.push(path);
  }
  return { files: files.sort(), listedBy: fromGit === undefined ? "walk" : "git" };
}

export function isSkipped(path: string): boolean {
  const parts = path.split("/");
  if (SKIPPED_FILES.has(parts.at(-1) ?? "")) return true;
  return parts.some((part, n) => SKIPPED_DIRS.has(part) || SKIPPED_PATHS.has(parts.slice(0, n + 1).join("/")));
}

/** git's view (undefined when git is missing or `root` is no work tree). */
async function gitFiles(root: string): Promise<string[] | undefined> {
  try {
    const { stdout } = await execa("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, stripFinalNewline: false });
    // A file with merge conflicts is listed once per stage.
    return [...new Set(stdout.split("\0").filter((p) => p !== ""))];
  } catch {
    return undefined;
  }
}

async function walk(root: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!isSkipped(path)) out.push(...(await walk(root, path)));
    } else if (entry.isFile()) out.push(path);
  }
  return out;
}

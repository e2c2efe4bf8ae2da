/**
 * Uncommitted changes under a folder, as `git status` reports them. The Gradescope package ships
 * the work tree (tracked files as they are on disk, and untracked ones that are not ignored), so
 * an edit to the student files or the solution that was never committed would go to Gradescope
 * unnoticed; package-gradescope refuses such a tree unless --allow-dirty.
 */
import { execa } from "execa";

export interface UncommittedChange {
  /** "/"-separated, relative to the repository root. */
  readonly path: string;
  readonly state: "modified" | "added" | "deleted" | "renamed" | "untracked" | "conflicted";
}

/** The changes under `folder` (absolute or relative to `repoRoot`), or undefined when git cannot tell (no git, not a work tree). */
export async function uncommittedChanges(repoRoot: string, folder: string): Promise<UncommittedChange[] | undefined> {
  const res = await execa("git", ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", folder], {
    cwd: repoRoot,
    reject: false,
    stripFinalNewline: false,
  });
  if (res.failed || res.exitCode !== 0) return undefined;
  return parsePorcelain(res.stdout);
}

/** `git status --porcelain=v1 -z`: "XY path\0", a rename followed by its source path "\0". */
export function parsePorcelain(text: string): UncommittedChange[] {
  const fields = text.split("\0");
  const changes: UncommittedChange[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    changes.push({ path: field.slice(3), state: stateOf(code) });
    if (code.includes("R") || code.includes("C")) i++; // the rename's or copy's source
  }
  return changes;
}

function stateOf(code: string): UncommittedChange["state"] {
  if (code === "??") return "untracked";
  if (code.includes("U") || code === "AA" || code === "DD") return "conflicted";
  if (code.includes("R") || code.includes("C")) return "renamed";
  if (code.includes("D")) return "deleted";
  if (code.includes("A")) return "added";
  return "modified";
}

/** The refusal (or, with --allow-dirty, the warning) naming each change. */
export function describeChanges(changes: readonly UncommittedChange[]): string {
  return changes.map((c) => `  ${c.state.padEnd(10)} ${c.path}`).join("\n");
}

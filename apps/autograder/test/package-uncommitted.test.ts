import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { memoryIO } from "../src/cli/io.js";
import { parsePackageArgs, runPackageCommand } from "../src/cli/package-command.js";
import { parsePorcelain, uncommittedChanges } from "../src/gradescope-package/uncommitted-changes.js";

/** A repository with a committed assignment folder; returns its root and the folder. */
async function committedRepo(): Promise<{ repo: string; assignment: string }> {
  const repo = await mkdtemp(join(tmpdir(), "tessera-dirty-"));
  const assignment = join(repo, "assignments", "gemm-relu-add");
  await mkdir(assignment, { recursive: true });
  await writeFile(join(repo, "pnpm-workspace.yaml"), "packages: []\n");
  await writeFile(join(assignment, "gemm_relu_add.ts"), "export {};\n");
  await writeFile(join(assignment, "trace_submission.ts"), "export {};\n");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repo, stdio: "pipe" });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "assignment");
  return { repo, assignment };
}

describe("package-gradescope and uncommitted changes", () => {
  it("reads git's porcelain status: modified, untracked, renamed (with its source skipped)", () => {
    expect(parsePorcelain(" M a/gemm_relu_add.ts\0?? a/notes.ts\0R  a/new.ts\0a/old.ts\0")).toEqual([
      { path: "a/gemm_relu_add.ts", state: "modified" },
      { path: "a/notes.ts", state: "untracked" },
      { path: "a/new.ts", state: "renamed" },
    ]);
  });

  it("finds nothing in a clean folder, and names modified and untracked student files", async () => {
    const { repo, assignment } = await committedRepo();
    expect(await uncommittedChanges(repo, assignment)).toEqual([]);
    await writeFile(join(assignment, "gemm_relu_add.ts"), "export const edited = 1;\n");
    await writeFile(join(assignment, "scratch.ts"), "export {};\n");
    await writeFile(join(repo, "elsewhere.ts"), "export {};\n"); // outside the folder: not its business
    expect(await uncommittedChanges(repo, assignment)).toEqual([
      { path: "assignments/gemm-relu-add/gemm_relu_add.ts", state: "modified" },
      { path: "assignments/gemm-relu-add/scratch.ts", state: "untracked" },
    ]);
  });

  it("refuses a dirty assignment folder, naming the files, and writes no package", async () => {
    const { repo, assignment } = await committedRepo();
    await writeFile(join(assignment, "trace_submission.ts"), "export const edited = 1;\n");
    const binding = { ...assignmentBinding(DEFAULT_ASSIGNMENT), root: assignment };
    const out = join(repo, "out", "autograder.zip");
    const io = memoryIO();
    expect(await runPackageCommand({ out, allowDirty: false }, binding, io)).toBe(1);
    const err = io.err.join("");
    expect(err).toContain("refusing to package");
    expect(err).toMatch(/modified\s+assignments\/gemm-relu-add\/trace_submission\.ts/);
    expect(err).toContain("--allow-dirty");
    expect(existsSync(out)).toBe(false);
  });

  it("takes --allow-dirty", () => {
    expect(parsePackageArgs(["--out", "a.zip"]).allowDirty).toBe(false);
    expect(parsePackageArgs(["--out", "a.zip", "--allow-dirty"]).allowDirty).toBe(true);
  });
});

/**
 * The handout works outside the repository: `pnpm handout DIR` into the OS temp folder, then
 * there, as a student would, `npm install` (the @tessera tarballs it carries; esbuild, isolated-vm,
 * tsx and typescript from npm's cache, else the registry; isolated-vm's addon from the workspace's
 * build, where a student's install downloads it: local-prebuilds.ts) and `npm run grade`: the starter scores
 * 0 with a message per task, the solution's files all the points a run without a GPU awards;
 * `npm run handin` warns about the starter; a scratch script runs with `npm run scratch`.
 *
 * Slow (bundles the grader, npm-installs, grades twice: a minute or two on 2 cores), so it runs only with TESSERA_HANDOUT_TEST=1: `pnpm test:handout`, a step of .ci/run.
 * TESSERA_HANDOUT_KEEP=1 keeps the handout.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedScore, resultsProblems } from "../../../apps/autograder/src/gradescope-package/expected-results.js";
import { loadManifest } from "../../../apps/autograder/src/manifest/index.js";
import { childEnv } from "../../../packages/runtime/test/packaging/published-packages.js";
import { assignmentRoot, manifestPath } from "../src/index.js";
import { localIsolatedVmPrebuilds } from "./local-prebuilds.js";

const REPO_ROOT = resolve(assignmentRoot(), "..", "..");
const enabled = process.env["TESSERA_HANDOUT_TEST"] === "1";
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env["TESSERA_TEST_VERBOSE"] === "1";
if (!enabled && VERBOSE)
  console.log("[handout] skipped: set TESSERA_HANDOUT_TEST=1 (or run `pnpm test:handout`) to write, install and grade a handout outside the repository");

/** Runs a command in the handout as a student would: no pnpm or vitest variables, no NODE_OPTIONS. */
async function inHandout(dir: string, command: string, args: readonly string[], env: Record<string, string> = {}) {
  return execa(command, [...args], { cwd: dir, reject: false, all: true, env: childEnv(env) });
}

describe.runIf(enabled)("a handout, installed and graded outside the repository", () => {
  let parent = "";
  let handout = "";
  const manifest = loadManifest(manifestPath());

  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), "tessera-handout-"));
    expect(relative(REPO_ROOT, parent).startsWith("..")).toBe(true);
    handout = join(parent, "gemm-relu-add");
    const tsx = join(REPO_ROOT, "node_modules", ".bin", "tsx");
    const written = await execa(tsx, ["--conditions=@tessera/source", join(assignmentRoot(), "scripts", "handout", "main.ts"), handout], {
      cwd: REPO_ROOT,
      reject: false,
      all: true,
    });
    expect(written.exitCode, written.all).toBe(0);
    const prebuilds = await localIsolatedVmPrebuilds(join(REPO_ROOT, "apps", "autograder", "package.json"), join(parent, "prebuilds"));
    const install = await inHandout(handout, "npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts"], prebuilds);
    expect(install.exitCode, install.all).toBe(0);
    // The offered addon was taken: nothing compiled (a compile costs CI minutes, not correctness).
    if (Object.keys(prebuilds).length > 0)
      expect(install.all, "isolated-vm compiled although local-prebuilds.ts offered its addon").not.toContain("gyp info spawn");
  }, 600_000);

  afterAll(async () => {
    if (process.env["TESSERA_HANDOUT_KEEP"] === "1") console.log(`[handout] kept ${handout}`);
    else if (parent !== "") await rm(parent, { recursive: true, force: true });
  });

  it("ships no solution, tests, instructor scripts or workspace: ranges", () => {
    const pkg = readFileSync(join(handout, "package.json"), "utf8");
    expect(pkg).not.toContain("workspace:");
    for (const dir of ["solution", "test", "scripts", "src"]) expect(existsSync(join(handout, dir)), dir).toBe(false);
  });

  it("grades the untouched starter: 0, with a message per task", async () => {
    const res = await inHandout(handout, "npm", ["run", "grade"]);
    expect(res.exitCode, res.all).toBe(0);
    const results = JSON.parse(readFileSync(join(handout, "results.json"), "utf8")) as unknown;
    expect(resultsProblems(results, manifest, "starter"), res.all).toEqual([]);
    expect(res.all).toContain("TODO(task 1)");
    expect(res.all).toContain("TODO(task 5)");
  }, 300_000);

  it("warns about the starter on hand-in, and still writes handin.zip", async () => {
    const res = await inHandout(handout, "npm", ["run", "handin"]);
    expect(res.exitCode, res.all).toBe(0);
    expect(res.all).toContain("warning: this hand-in looks unfinished");
    expect(readFileSync(join(handout, "handin.zip")).length).toBeGreaterThan(0);
  }, 120_000);

  it("runs a scratch script against the installed packages", async () => {
    writeFileSync(
      join(handout, "scratch.ts"),
      'import { Schedule } from "@tessera/schedule";\nimport { workload } from "./gemm_relu_add.js";\nconst sch = new Schedule(workload(64));\nconsole.log(sch.getLoops(sch.getBlock("gemm")).length);\n',
    );
    const res = await inHandout(handout, "npm", ["run", "--silent", "scratch", "--", "scratch.ts"]);
    expect(res.exitCode, res.all).toBe(0);
    expect(res.stdout.trim()).toBe("3");
  }, 120_000);

  it("grades the solution's files: every point a run without a GPU awards", async () => {
    for (const file of ["gemm_relu_add.ts", "auto_tuning.ts", "trace_submission.ts"])
      copyFileSync(join(assignmentRoot(), "solution", file), join(handout, file));
    const res = await inHandout(handout, "npm", ["run", "grade", "--", "--no-gpu"]);
    expect(res.exitCode, res.all).toBe(0);
    const results = JSON.parse(readFileSync(join(handout, "results.json"), "utf8")) as { score: number };
    expect(resultsProblems(results, manifest, "solution"), res.all).toEqual([]);
    expect(results.score).toBe(expectedScore(manifest, "solution"));
  }, 300_000);
});

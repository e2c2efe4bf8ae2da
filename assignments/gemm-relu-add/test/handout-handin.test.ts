import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  HANDIN_FILES,
  STUDENT_FILES,
  assignmentRoot,
  type HandoutProject,
  createHandin,
  handoutFiles,
  readZip,
  todoThrows,
  traceIsEmpty,
  unfinishedWork,
  writeHandout,
} from "../src/index.js";

const tmp = (): string => mkdtempSync(join(tmpdir(), "assignment-"));
const PROJECT: HandoutProject = {
  tarballs: [
    { name: "@tessera/ir", file: "tarballs/tessera-ir-0.0.0.tgz" },
    { name: "@tessera/schedule", file: "tarballs/tessera-schedule-0.0.0.tgz" },
  ],
  versions: {
    esbuild: "0.28.2",
    isolatedVm: { "isolated-vm-5": "npm:isolated-vm@5.0.4", "isolated-vm-6": "npm:isolated-vm@6.2.0" },
    tsx: "4.23.15",
    typescript: "5.9.3",
  },
};

describe("handout", () => {
  it("holds the student files, the README and the manifest, but no solution, tests or instructor scripts", () => {
    const files = handoutFiles();
    expect(files).toEqual([...STUDENT_FILES.map((s) => s.file), "README.md", "grading/manifest.json"].sort());
    const written = writeHandout(tmp(), PROJECT, { force: true });
    expect(written).toEqual([...files, "package.json", "tsconfig.json"].sort());
    expect(written.filter((f) => /^(solution|test|scripts|src|node_modules)\//.test(f))).toEqual([]);
  });

  it("writes a package.json that installs the packed packages (never workspace:) and grades, and a standalone tsconfig", () => {
    const dir = tmp();
    writeHandout(dir, PROJECT, { force: true });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    expect(JSON.stringify(pkg)).not.toContain("workspace:");
    expect(pkg["exports"]).toBeUndefined();
    expect(pkg["dependencies"]).toMatchObject({
      "@tessera/ir": "file:tarballs/tessera-ir-0.0.0.tgz",
      "@tessera/schedule": "file:tarballs/tessera-schedule-0.0.0.tgz",
      esbuild: "0.28.2",
    });
    expect(pkg["optionalDependencies"]).toEqual({ "isolated-vm-5": "npm:isolated-vm@5.0.4", "isolated-vm-6": "npm:isolated-vm@6.2.0" });
    expect(Object.keys(pkg["scripts"] ?? {})).toEqual(expect.arrayContaining(["grade", "handin", "scratch"]));
    expect(pkg["scripts"]?.["grade"]).toBe("node grader/grade.mjs");
    expect(JSON.stringify(pkg["scripts"])).not.toMatch(/conditions|handout/);
    const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8")) as Record<string, unknown>;
    expect(tsconfig["extends"]).toBeUndefined();
  });

  it("is written to an empty folder, refused for a non-empty one unless forced", () => {
    const dir = tmp();
    const target = join(dir, "handout");
    const written = writeHandout(target, PROJECT);
    expect(existsSync(join(target, "gemm_relu_add.ts"))).toBe(true);
    expect(existsSync(join(target, "solution"))).toBe(false);
    expect(readFileSync(join(target, "gemm_relu_add.ts"), "utf8")).toContain("TODO(task 1)");
    expect(() => writeHandout(target, PROJECT)).toThrow(/is not empty; pass --force/);
    expect(writeHandout(target, PROJECT, { force: true })).toEqual(written);
    expect(() => writeHandout(join(assignmentRoot(), "out"), PROJECT)).toThrow(/inside the assignment folder/);
  });
});

describe("unfinished work in a hand-in", () => {
  const starter = (file: string): string => readFileSync(join(assignmentRoot(), file), "utf8");
  const solution = (file: string): string => readFileSync(join(assignmentRoot(), "solution", file), "utf8");

  it("names the tasks that still throw their TODO error, not commented-out ones", () => {
    expect(todoThrows(starter("gemm_relu_add.ts"))).toEqual([
      "task 1 (sharedMemoryTiling)",
      "task 2 (registerTiling)",
      "task 3 (cooperativeFetching)",
      "task 4 (writeCache)",
      "task 5 (epilogueFusion)",
    ]);
    expect(todoThrows(solution("gemm_relu_add.ts"))).toEqual([]);
    expect(todoThrows('  // throw new Error("TODO(task 1): sharedMemoryTiling is not implemented yet");')).toEqual([]);
  });

  it("tells the starter's trace (schedules nothing) from a tuned one", () => {
    expect(traceIsEmpty(starter("trace_submission.ts"))).toBe(true);
    expect(traceIsEmpty(solution("trace_submission.ts"))).toBe(false);
    expect(traceIsEmpty("export function applyTrace(sch: Schedule): void {\n  tile(sch);\n}\n")).toBe(false);
  });

  it("lists both for the starter folder and nothing for the solution's files", () => {
    expect(unfinishedWork(assignmentRoot()).map((u) => u.file)).toEqual(["gemm_relu_add.ts", "trace_submission.ts"]);
    const dir = tmp();
    for (const file of HANDIN_FILES) copyFileSync(join(assignmentRoot(), file === "feedback.txt" ? file : join("solution", file)), join(dir, file));
    expect(unfinishedWork(dir)).toEqual([]);
  });
});

describe("handin", () => {
  it("zips exactly gemm_relu_add.ts, trace_submission.ts and feedback.txt at the archive root", async () => {
    const dir = tmp();
    writeHandout(dir, PROJECT, { force: true });
    const { archive, files } = createHandin({ root: dir });
    expect(archive).toBe(join(dir, "handin.zip"));
    expect(files).toEqual(["gemm_relu_add.ts", "trace_submission.ts", "feedback.txt"]);
    const entries = await readZip(readFileSync(archive));
    expect(entries.map((e) => e.name)).toEqual([...HANDIN_FILES]);
    for (const e of entries) expect(Buffer.from(e.data).equals(readFileSync(join(dir, e.name)))).toBe(true);
  });

  it("names every missing file", () => {
    const dir = tmp();
    copyFileSync(join(assignmentRoot(), "gemm_relu_add.ts"), join(dir, "gemm_relu_add.ts"));
    mkdirSync(join(dir, "feedback.txt")); // a folder is not a file
    expect(() => createHandin({ root: dir })).toThrow(/missing in .*: trace_submission\.ts, feedback\.txt/);
    rmSync(dir, { recursive: true });
  });

  it("the handin command writes the archive, and reports errors without a stack trace", async () => {
    const tsx = createRequire(import.meta.url).resolve("tsx/cli");
    const script = join(assignmentRoot(), "scripts", "handin.ts");
    const run = (args: string[]) =>
      spawnSync(process.execPath, [tsx, "--conditions=@tessera/source", script, ...args], { encoding: "utf8", cwd: assignmentRoot() });
    const dir = tmp();
    writeHandout(dir, PROJECT, { force: true });
    const ok = run(["--dir", dir, "--out", join(dir, "out.zip")]);
    expect(ok.status, ok.stderr).toBe(0);
    // The untouched starter: warned about, task by task, and still written.
    expect(ok.stderr).toMatch(/^warning: this hand-in looks unfinished:/);
    expect(ok.stderr).toContain(
      "gemm_relu_add.ts: still throws its TODO error (0 points): task 1 (sharedMemoryTiling), task 2 (registerTiling), task 3 (cooperativeFetching), task 4 (writeCache), task 5 (epilogueFusion)",
    );
    expect(ok.stderr).toContain("trace_submission.ts: applyTrace schedules nothing");
    for (const file of ["gemm_relu_add.ts", "trace_submission.ts"]) copyFileSync(join(assignmentRoot(), "solution", file), join(dir, file));
    const finished = run(["--dir", dir, "--out", join(dir, "done.zip")]);
    expect(finished.status, finished.stderr).toBe(0);
    expect(finished.stderr).toBe("");
    expect((await readZip(readFileSync(join(dir, "out.zip")))).map((e) => e.name)).toEqual([...HANDIN_FILES]);
    const empty = tmp();
    const failed = run(["--dir", empty]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^error: cannot build handin\.zip: missing in .*gemm_relu_add\.ts, trace_submission\.ts, feedback\.txt/);
    expect(failed.stderr).not.toMatch(/\bat \w+ \(/); // no stack trace
  }, 60_000);

  it.skipIf(spawnSync("unzip", ["-v"]).status !== 0)("unzip lists the same three files", () => {
    const dir = tmp();
    writeHandout(dir, PROJECT, { force: true });
    const { archive } = createHandin({ root: dir });
    expect(execFileSync("unzip", ["-Z1", archive], { encoding: "utf8" }).trim().split("\n")).toEqual([...HANDIN_FILES]);
  });
});

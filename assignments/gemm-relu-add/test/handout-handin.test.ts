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
  createHandin,
  handoutFiles,
  readZip,
  writeHandout,
} from "../src/index.js";

const tmp = (): string => mkdtempSync(join(tmpdir(), "assignment-"));

describe("handout", () => {
  it("holds the student files, the README, the manifest and the scripts, but no solution or tests", () => {
    const files = handoutFiles();
    for (const f of [...STUDENT_FILES.map((s) => s.file), "README.md", "package.json", "tsconfig.json", "src/index.ts", "scripts/handin.ts", "grading/manifest.json"]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^(solution|test|node_modules)\//.test(f) || f === "handin.zip")).toEqual([]);
  });

  it("is written to an empty folder, refused for a non-empty one unless forced", () => {
    const dir = tmp();
    const target = join(dir, "handout");
    const written = writeHandout(target);
    expect(existsSync(join(target, "gemm_relu_add.ts"))).toBe(true);
    expect(existsSync(join(target, "solution"))).toBe(false);
    expect(readFileSync(join(target, "gemm_relu_add.ts"), "utf8")).toContain("TODO(task 1)");
    expect(() => writeHandout(target)).toThrow(/is not empty; pass --force/);
    expect(writeHandout(target, { force: true })).toEqual(written);
    expect(() => writeHandout(join(assignmentRoot(), "out"))).toThrow(/inside the assignment folder/);
  });
});

describe("handin", () => {
  it("zips exactly gemm_relu_add.ts, trace_submission.ts and feedback.txt at the archive root", async () => {
    const dir = tmp();
    writeHandout(dir, { force: true });
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
    writeHandout(dir, { force: true });
    const ok = run(["--dir", dir, "--out", join(dir, "out.zip")]);
    expect(ok.status, ok.stderr).toBe(0);
    expect((await readZip(readFileSync(join(dir, "out.zip")))).map((e) => e.name)).toEqual([...HANDIN_FILES]);
    const empty = tmp();
    const failed = run(["--dir", empty]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^error: cannot build handin\.zip: missing in .*gemm_relu_add\.ts, trace_submission\.ts, feedback\.txt/);
    expect(failed.stderr).not.toMatch(/\bat \w+ \(/); // no stack trace
  }, 60_000);

  it.skipIf(spawnSync("unzip", ["-v"]).status !== 0)("unzip lists the same three files", () => {
    const dir = tmp();
    writeHandout(dir, { force: true });
    const { archive } = createHandin({ root: dir });
    expect(execFileSync("unzip", ["-Z1", archive], { encoding: "utf8" }).trim().split("\n")).toEqual([...HANDIN_FILES]);
  });
});

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TEMP_ROOT_PREFIX, makeTempRoot } from "./temp-root.mjs";

describe("the test run's temporary folder", () => {
  it("is where this run's scratch files go: os.tmpdir() here and in a child process lies under one tessera-tests- folder", () => {
    const here = tmpdir();
    expect(basename(here).startsWith(TEMP_ROOT_PREFIX), here).toBe(true);
    const child = execFileSync(process.execPath, ["-e", "process.stdout.write(require('node:os').tmpdir())"], { encoding: "utf8" });
    expect(realpathSync(child)).toBe(realpathSync(here));
  });

  const saved = process.env.TMPDIR;
  const savedKeep = process.env.TESSERA_TEST_KEEP_TMP;
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    if (savedKeep === undefined) delete process.env.TESSERA_TEST_KEEP_TMP;
    else process.env.TESSERA_TEST_KEEP_TMP = savedKeep;
  });

  it("is removed with everything in it when the run ends, and TMPDIR is given back", () => {
    delete process.env.TESSERA_TEST_KEEP_TMP;
    const before = tmpdir();
    const lines: string[] = [];
    const teardown = makeTempRoot((line) => lines.push(line));
    const root = tmpdir();
    expect(dirname(root)).toBe(before);
    mkdirSync(join(root, "a", "b"), { recursive: true });
    writeFileSync(join(root, "a", "b", "left-behind.txt"), "x");
    teardown();
    expect(existsSync(root)).toBe(false);
    expect(process.env.TMPDIR).toBe(saved);
    expect(lines).toEqual([]);
  });

  it("is kept when TESSERA_TEST_KEEP_TMP=1", () => {
    process.env.TESSERA_TEST_KEEP_TMP = "1";
    const lines: string[] = [];
    const teardown = makeTempRoot((line) => lines.push(line));
    const root = tmpdir();
    teardown();
    expect(existsSync(root)).toBe(true);
    expect(lines).toEqual([`the tests' temporary files are kept in ${root}\n`]);
    expect(root.includes(`${sep}${TEMP_ROOT_PREFIX}`)).toBe(true);
  });
});

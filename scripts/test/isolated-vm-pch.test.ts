/**
 * .ci/isolated-vm-pch.sh's header: what `.ci/run` puts in front of every C++ file the install
 * compiles. It must hold V8's headers for isolated-vm's files and nothing for any other addon's
 * (the runtime's N-API addon compiles in the same install). The precompiling itself needs the
 * registry and half a minute; CI's install log says each run whether it was used.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const script = join(repo, ".ci/isolated-vm-pch.sh");
const scratch = mkdtempSync(join(tmpdir(), "isolated-vm-pch-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (args: string[]) => spawnSync("bash", [script, ...args], { cwd: repo, encoding: "utf8" });
const hasGxx = spawnSync("g++", ["--version"]).status === 0;
const compilesIsolatedVm = process.versions.modules === "115";

describe(".ci/isolated-vm-pch.sh", () => {
  it("refuses a call without a mode and a folder, with its usage", () => {
    for (const args of [[], ["header"], ["build", scratch]]) {
      const res = run(args);
      expect(res.status).toBe(2);
      expect(res.stderr).toMatch(/usage: bash \.ci\/isolated-vm-pch\.sh header\|precompile DIR/);
    }
  });

  it.runIf(hasGxx && compilesIsolatedVm)(
    "header: prints the -include flag; the header includes V8's headers only where isolated_vm.h is on the include path",
    () => {
      const dir = join(scratch, "pch");
      const res = run(["header", dir]);
      expect(res.status).toBe(0);
      expect(res.stdout.trim()).toBe(`-include ${dir}/iv-pch.h`);
      // A file of another addon: the header adds nothing (the preprocessed output names no header of V8).
      writeFileSync(join(scratch, "other.cc"), "int other() { return 1; }\n");
      const other = spawnSync("g++", ["-E", "-include", join(dir, "iv-pch.h"), join(scratch, "other.cc")], { encoding: "utf8" });
      expect(other.status).toBe(0);
      expect(other.stdout).not.toMatch(/v8\.h|node\.h|<memory>|bits\/unique_ptr/);
      // A file of isolated-vm (isolated_vm.h on the include path): V8's and Node's headers come first.
      const src = join(scratch, "src");
      mkdirSync(src, { recursive: true });
      writeFileSync(join(src, "isolated_vm.h"), "#pragma once\n");
      writeFileSync(join(src, "file.cc"), '#include "isolated_vm.h"\n');
      const nodeHeaders = join(process.execPath, "../../include/node");
      const mine = spawnSync("g++", ["-M", `-I${src}`, `-I${nodeHeaders}`, "-I/usr/include/node", "-include", join(dir, "iv-pch.h"), join(src, "file.cc")], {
        encoding: "utf8",
      });
      expect(mine.status, mine.stderr).toBe(0);
      expect(mine.stdout).toMatch(/\/v8\.h\b/);
      expect(mine.stdout).toMatch(/\/node\.h\b/);
    },
  );

  it.runIf(!compilesIsolatedVm)("does nothing on a Node that takes isolated-vm's prebuilt addon", () => {
    const res = run(["header", join(scratch, "none")]);
    expect(res.status).toBe(0);
    expect(res.stdout).toBe("");
  });
});

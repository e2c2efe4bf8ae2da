/**
 * The assignment folder's own scripts, as a student in the repository runs them: `pnpm grade`
 * grades the folder, and `pnpm scratch file.ts` runs a scratch script against the workspace
 * sources (a plain `tsx` would look for the packages' unbuilt dist/).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assignmentRoot } from "../src/index.js";

/** `pnpm <args>` in the assignment folder, without the variables of the test run. */
function pnpm(args: readonly string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(NODE_OPTIONS|VITEST.*|npm_.*|PNPM_.*)$/i.test(key)));
  return spawnSync("pnpm", ["--silent", ...args], { cwd: assignmentRoot(), encoding: "utf8", env });
}

describe("the assignment's scripts", () => {
  it("pnpm grade grades the assignment folder", () => {
    const out = mkdtempSync(join(tmpdir(), "assignment-grade-"));
    const res = pnpm(["grade", "--results", join(out, "results.json")]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Graded: ${assignmentRoot()}`);
    expect(res.stdout).toMatch(/Total\s+0 \/ 80/);
    rmSync(out, { recursive: true, force: true });
  }, 120_000);

  it("pnpm scratch runs a scratch script that imports the schedule API and the student files", () => {
    const name = `.scratch-${process.pid}.ts`;
    const file = join(assignmentRoot(), name);
    writeFileSync(
      file,
      'import { Schedule } from "@tessera/schedule";\nimport { workload } from "./gemm_relu_add.js";\nconst sch = new Schedule(workload(64));\nconsole.log(sch.getLoops(sch.getBlock("gemm")).length);\n',
    );
    try {
      const res = pnpm(["scratch", name]);
      expect(res.status, res.stderr).toBe(0);
      expect(res.stdout.trim()).toBe("3");
    } finally {
      rmSync(file, { force: true });
    }
  }, 60_000);
});

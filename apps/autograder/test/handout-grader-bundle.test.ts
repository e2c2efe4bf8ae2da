/** The grader a handout carries is built without any instructor solution (the build refuses otherwise). */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundleHandoutGrader } from "../scripts/handout-grader/bundle.js";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";

const scratch = mkdtempSync(join(tmpdir(), "tessera-handout-grader-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the handout's grader", () => {
  it("is built from the bindings' handout-solution.ts, never from solution/", async () => {
    const root = assignmentBinding(DEFAULT_ASSIGNMENT).root;
    const outDir = join(scratch, "grader");
    const inputs = await bundleHandoutGrader({ outDir, assignment: DEFAULT_ASSIGNMENT, handinScript: join(root, "scripts", "handin.ts") });
    expect(inputs.filter((f) => /assignments\/[^/]+\/solution\//.test(f))).toEqual([]);
    expect(inputs.some((f) => /assignments\/gemm-relu-add\/binding\/handout-solution\.ts$/.test(f))).toBe(true);
    expect(inputs.some((f) => /assignments\/gemm-relu-add\/gemm_relu_add\.ts$/.test(f))).toBe(true);
    expect(inputs.some((f) => /apps\/autograder\/src\/grade\/chain\.ts$/.test(f))).toBe(true);
    expect(readdirSync(outDir)).toEqual(expect.arrayContaining(["grade.mjs", "handin.mjs", "tessera-grade.mjs"]));
    expect(readFileSync(join(outDir, "grade.mjs"), "utf8")).toContain(`process.argv.push("--assignment", "${DEFAULT_ASSIGNMENT}")`);
  }, 120_000);
});

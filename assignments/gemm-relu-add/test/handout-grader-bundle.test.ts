/** The grader a handout carries is built without the instructor's solution (the build refuses otherwise). */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundleGrader } from "../scripts/handout/bundle-grader.js";

const scratch = mkdtempSync(join(tmpdir(), "tessera-handout-grader-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the handout's grader", () => {
  it("is built from the starter's course-provided functions, never from solution/", async () => {
    const inputs = await bundleGrader(scratch);
    expect(inputs.filter((f) => /assignments\/gemm-relu-add\/solution\//.test(f))).toEqual([]);
    expect(inputs.some((f) => /assignments\/gemm-relu-add\/gemm_relu_add\.ts$/.test(f))).toBe(true);
    expect(inputs.some((f) => /apps\/autograder\/src\/grade\/chain\.ts$/.test(f))).toBe(true);
    expect(readdirSync(join(scratch, "grader"))).toContain("grade.mjs");
  }, 120_000);
});

/**
 * The expectations the debootstrap check (scripts/gradescope-debootstrap.sh) holds a Gradescope
 * results.json to: starter 0, solution every point a run without a GPU can award.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { expectedScore, gpuOnlyPoints, resultsProblems } from "../src/gradescope-package/expected-results.js";
import { loadManifest } from "../src/manifest/index.js";
import { type GradescopeTest, failureResults, gradescopeResults } from "../src/report/gradescope.js";

const manifest = loadManifest(assignmentBinding(DEFAULT_ASSIGNMENT).manifestPath);

/** One test per task, as the grader writes them without a GPU: timing points left out of max_score. */
function taskTests(scoreOf: (max: number) => number): GradescopeTest[] {
  return manifest.tasks.map((task) => {
    const max = task.checks.reduce((s, c) => s + (c.kind === "tuned-time" ? 0 : c.points), 0);
    const score = scoreOf(max);
    return { name: task.title, score, max_score: max, status: score === max ? "passed" : "failed", output: "", visibility: "visible" };
  });
}

describe("the debootstrap check's expectations", () => {
  it("counts the timing checks as the GPU-only points", () => {
    const timing = manifest.tasks.flatMap((t) => t.checks).filter((c) => c.kind === "tuned-time");
    expect(timing.length).toBeGreaterThan(0);
    expect(gpuOnlyPoints(manifest)).toBe(timing.reduce((s, c) => s + c.points, 0));
    expect(expectedScore(manifest, "solution")).toBe(manifest.totalPoints - gpuOnlyPoints(manifest));
  });

  it("accepts the solution with every point but the GPU-only ones, and the starter with none", () => {
    expect(
      resultsProblems(
        gradescopeResults(
          taskTests((max) => max),
          "",
          1,
        ),
        manifest,
        "solution",
      ),
    ).toEqual([]);
    expect(
      resultsProblems(
        gradescopeResults(
          taskTests(() => 0),
          "",
          1,
        ),
        manifest,
        "starter",
      ),
    ).toEqual([]);
  });

  it("names the test where the solution lost points", () => {
    const tests = taskTests((max) => max);
    const first = tests[0]!;
    tests[0] = { ...first, score: first.max_score - 1, status: "failed" };
    const problems = resultsProblems(gradescopeResults(tests, "", 1), manifest, "solution");
    expect(problems).toContain(`the solution failed ${first.name}`);
    expect(problems.join("\n")).toContain(`short of full marks: ${first.name} ${first.max_score - 1}/${first.max_score}`);
  });

  it("rejects a starter that scores, a failure result without tests, and a malformed file", () => {
    expect(
      resultsProblems(
        gradescopeResults(
          taskTests((max) => max),
          "",
          1,
        ),
        manifest,
        "starter",
      ).join("\n"),
    ).toContain("the starter scored");
    expect(resultsProblems(failureResults("the grader crashed", 1), manifest, "starter").join("\n")).toContain("no tests: the grader did not grade");
    expect(resultsProblems({ score: "80" }, manifest, "solution")[0]).toMatch(/^not a valid Gradescope results\.json: /);
  });
});

describe("scripts/gradescope-debootstrap.sh", () => {
  it("is a script bash can parse", () => {
    const script = fileURLToPath(new URL("../scripts/gradescope-debootstrap.sh", import.meta.url));
    const r = spawnSync("bash", ["-n", script], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  });
});

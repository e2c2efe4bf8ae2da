/**
 * The grader knows no assignment: d2l-transpose (two tasks, its own manifest, workload, inputs and
 * float64 reference, all from its binding) is graded by the same code as gemm-relu-add, selected by
 * `tessera-grade --assignment`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { loadManifest } from "../src/manifest/index.js";

const binding = assignmentBinding("d2l-transpose");
const scratch = mkdtempSync(join(tmpdir(), "tessera-second-assignment-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function grade(
  dir: string,
): Promise<{ code: number; out: string; results: { score: number; tests: { name: string; score: number; output: string }[] } }> {
  const io = memoryIO();
  const resultsPath = join(scratch, `${dir.replaceAll("/", "_")}.json`);
  const code = await runGradeCli(["--assignment", "d2l-transpose", "--dir", dir, "--no-gpu", "--results", resultsPath], io);
  return { code, out: io.out.join(""), results: JSON.parse(readFileSync(resultsPath, "utf8")) as never };
}

describe("tessera-grade --assignment d2l-transpose", () => {
  it("gives the solution full marks without a GPU, its numerics checked against the binding's reference", async () => {
    const { code, out, results } = await grade(join(binding.root, "solution"));
    expect(code).toBe(0);
    expect(out).toMatch(/Task 1\. Tiles\s+6 \/ 6/);
    expect(out).toMatch(/Task 2\. Threads\s+4 \/ 4/);
    expect(out).toMatch(/every one of the 262144 elements of Y is written, each by one thread/);
    expect(out).toMatch(/Total\s+10 \/ 10/);
    expect(results.score).toBe(10);
    // Sizes are named by the transpose's own domain: no message assumes the gemm's n×n×n.
    expect(out).toContain("all 1024 thread blocks of the 512×512 kernel, in each of 2 rounds");
    expect(out).not.toMatch(/512×512×512|ReLU/);
  });

  it("gives the starter 0, with each task's own message", async () => {
    const { code, out, results } = await grade(binding.root);
    expect(code).toBe(0);
    expect(out).toContain('tileLoops is not implemented yet (it still throws "TODO(task 1): tileLoops is not implemented yet")');
    expect(out).toContain('bindThreads is not implemented yet (it still throws "TODO(task 2): bindThreads is not implemented yet")');
    expect(out).toMatch(/Total\s+0 \/ 10/);
    expect(results.score).toBe(0);
  });

  it("has no tuning part, so its manifest has no tunedScore table or calibration", () => {
    const manifest = loadManifest(binding.manifestPath);
    expect(manifest.tasks.flatMap((t) => t.checks).some((c) => c.kind === "tuned-time")).toBe(false);
    expect(manifest.tunedScore).toBeUndefined();
    expect(manifest.calibration).toBeUndefined();
  });

  it("refuses an assignment it does not know, naming the ones it does", async () => {
    const io = memoryIO();
    const code = await runGradeCli(["--assignment", "nope", "--no-gpu"], io);
    expect(code).not.toBe(0);
    expect(io.err.join("")).toContain("--assignment nope: no such assignment (known: gemm-relu-add, d2l-transpose)");
  });
});

/**
 * The batch progress bar on a terminal: what it shows for the submissions being graded, and
 * that an error is on the screen when it happens, not when the rest of the batch lets it through.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { type SubmissionOutcome, errorOutcome } from "../src/batch/grade-one.js";
import { RunningSubmissions, progressReporter } from "../src/batch/progress.js";
import { runBatch } from "../src/batch/run-batch.js";
import type { SubmissionGrader } from "../src/batch/submission-grader.js";
import { loadManifest } from "../src/manifest/index.js";
import { failureResults } from "../src/report/gradescope.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const results = failureResults("unused here", 0);

/** The bar as drawn last: the text after the last cursor reset, escapes removed. */
function lastBar(screen: string): string {
  const lines = screen.split("\u001b[1G").filter((l) => l.startsWith("grading ["));
  return (lines.at(-1) ?? "").replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
}

describe("progress on a terminal", () => {
  it("names each submission being graded with its current step and time, never '(starting…)'", () => {
    const err: string[] = [];
    let clock = 0;
    const progress = progressReporter({ interactive: true, stdout: () => {}, stderr: (t) => void err.push(t) }, { now: () => clock, columns: 200 });
    progress.start(3);
    progress.started("alice");
    expect(lastBar(err.join(""))).toMatch(/^grading \[[^\]]*\] 0\/3 \| elapsed \S+ \| ETA \S+ \| alice: grading 0s$/);
    clock = 3_000;
    progress.step("alice", "checking the manual schedule's numerics");
    progress.started("bob");
    clock = 5_000;
    progress.step("bob", "unpacking bob.zip");
    expect(lastBar(err.join(""))).toContain("alice: checking the manual schedule's numerics… 5s · bob: unpacking bob.zip… 2s");
    progress.finished({ name: "alice", status: "graded", seconds: 1, results, reportText: "", score: 80, maxScore: 80, tasks: [], numerics: {} });
    progress.finished({ name: "bob", status: "error", seconds: 0, results, reportText: "", error: "bob.zip: broken\nsecond line" });
    const screen = err.join("");
    expect(screen).toContain("bob: error (0.0 s): bob.zip: broken\n");
    expect(screen).not.toContain("second line");
    expect(screen).not.toContain("starting…");
    expect(lastBar(screen)).toMatch(/ 2\/3 \| .*\| $/);
    progress.close();
  });

  it("cuts what is running to the room left on the line", () => {
    const running = new RunningSubmissions(() => 0);
    running.start("a-submission-with-a-very-long-name");
    running.step("a-submission-with-a-very-long-name", "replaying the trace of task 3");
    running.start("b");
    expect(running.describe(40)).toHaveLength(40);
    expect(running.describe(40).endsWith("…")).toBe(true);
    running.finish("a-submission-with-a-very-long-name");
    expect(running.describe(40)).toBe("b: grading 0s");
  });
});

describe("a batch's errors on the terminal", () => {
  it("shows a failed submission at once, while another submission holds the thread", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tessera-progress-"));
    await mkdir(join(dir, "subs", "alice"), { recursive: true });
    await writeFile(join(dir, "subs", "broken.zip"), "not a zip");
    let aliceDone = false;
    let errorShownWhileAliceRan: boolean | undefined;
    const io = {
      interactive: true,
      stdout: () => {},
      stderr: (t: string) => {
        if (t.includes("broken: error")) errorShownWhileAliceRan = !aliceDone;
      },
    };
    // Alice is graded in this thread: CPU-bound chunks, each holding the event loop 100 ms.
    const grader: SubmissionGrader = {
      concurrency: 2,
      mode: "in-process",
      dispose: async () => {},
      grade: async (sub): Promise<SubmissionOutcome> => {
        if (sub.name === "broken") {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return errorOutcome(sub.name, "invalid zip archive: end of central directory record signature not found", 0.02);
        }
        for (let chunk = 0; chunk < 15; chunk++) {
          await new Promise((resolve) => setImmediate(resolve));
          const until = performance.now() + 100;
          while (performance.now() < until);
        }
        aliceDone = true;
        return errorOutcome(sub.name, "done", 1.5);
      },
    };
    await runBatch({ dir: join(dir, "subs"), out: join(dir, "out"), binding, manifest, grader, progress: progressReporter(io) });
    expect(errorShownWhileAliceRan).toBe(true);
  });
});

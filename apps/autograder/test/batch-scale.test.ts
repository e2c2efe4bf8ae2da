/**
 * Batch grading at scale: shards, the serialized GPU, pass rates, the histogram, the outcome
 * files a resumed run relies on, the ETA lines; and a small batch graded for real in two shards
 * (one with --jobs 2 in worker threads), merged, then resumed after a simulated kill.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HANDIN_FILES, assignmentRoot, writeZip } from "@tessera/assignment-gemm-relu-add";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { writeAtomically } from "../src/batch/atomic-write.js";
import type { OutcomeSummary, SubmissionOutcome } from "../src/batch/grade-one.js";
import type { NumericsVerdictKind } from "../src/grade/numerics-verdicts.js";
import { scoreHistogramSvg } from "../src/batch/histogram.js";
import { OUTCOME_FILE, readStoredOutcome, storeOutcome } from "../src/batch/outcome-store.js";
import { passRatesMarkdown, taskPassRates } from "../src/batch/pass-rates.js";
import { progressReporter } from "../src/batch/progress.js";
import { type BatchResult, mergeBatch, runBatch } from "../src/batch/run-batch.js";
import { parseShard, selectShard } from "../src/batch/shard.js";
import { serializedGpu } from "../src/batch/serialized-gpu.js";
import { createSubmissionGrader } from "../src/batch/submission-grader.js";
import { memoryIO } from "../src/cli/io.js";
import type { GpuBackend, NumericsOutcome, NumericsRequest, TimingOutcome } from "../src/grade/numerics-types.js";
import { loadManifest } from "../src/manifest/index.js";
import { failureResults } from "../src/report/gradescope.js";
import { writeSubmission } from "./submission-cases.js";
import { useBundledGraderWorkers } from "./support/bundled-workers.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-batch-scale-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const graded = (name: string, score: number, tasks: [string, number, number][], numerics: Record<string, NumericsVerdictKind> = {}): OutcomeSummary => ({
  name,
  seconds: 1,
  status: "graded",
  score,
  maxScore: tasks.reduce((s, [, , max]) => s + max, 0),
  tasks: tasks.map(([id, points, maxPoints]) => ({ id, points, maxPoints })),
  numerics,
});
const failed = (name: string): OutcomeSummary => ({ name, seconds: 0, status: "error", error: `${name}.zip is broken` });

describe("--shard i/n", () => {
  it("parses I/N with 1 ≤ I ≤ N and nothing else", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 1 / 1 ")).toEqual({ index: 1, count: 1 });
    for (const bad of ["0/2", "3/2", "1/0", "1", "a/b", "1/2/3", "-1/2", "1.5/2"]) expect(parseShard(bad), bad).toBeUndefined();
  });

  it("puts every submission in exactly one shard, the shards within one of each other, whatever the input order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), (names, count) => {
        const items = names.map((name) => ({ name }));
        const shards = Array.from({ length: count }, (_, i) => selectShard(items, { index: i + 1, count }).map((s) => s.name));
        const reversed = Array.from({ length: count }, (_, i) => selectShard([...items].reverse(), { index: i + 1, count }).map((s) => s.name));
        const sizes = shards.map((s) => s.length);
        return (
          JSON.stringify([...shards.flat()].sort()) === JSON.stringify([...names].sort()) &&
          Math.max(...sizes) - Math.min(...sizes) <= 1 &&
          JSON.stringify(shards) === JSON.stringify(reversed)
        );
      }),
    );
  });
});

describe("a GPU shared by concurrent submissions", () => {
  /** A fake device whose runs finish when the test says, recording how many overlap. */
  function fakeGpu(): { gpu: GpuBackend; started: string[]; finish: (n: number) => void; maxOverlap: () => number } {
    const started: string[] = [];
    const pending: ((value: never) => void)[] = [];
    let running = 0;
    let maxOverlap = 0;
    const run = <T>(label: string): Promise<T> => {
      started.push(label);
      running++;
      maxOverlap = Math.max(maxOverlap, running);
      return new Promise<T>((resolve, reject) => {
        pending.push((value) => {
          running--;
          if (label.startsWith("fail")) reject(new Error(`${label} faulted`));
          else resolve(value);
        });
      });
    };
    const gpu: GpuBackend = {
      name: "Fake GPU",
      key: undefined,
      numerics: (req: NumericsRequest) => run<NumericsOutcome>(`numerics ${req.seed}`),
      time: () => run<TimingOutcome>("fail time"),
      dispose: () => {},
    };
    return { gpu, started, finish: (n) => pending[n]!(undefined as never), maxOverlap: () => maxOverlap };
  }
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it("runs one thing at a time, in the order asked, a failure not blocking the next", async () => {
    const fake = fakeGpu();
    const shared = serializedGpu(fake.gpu);
    const request = (seed: number): NumericsRequest => ({ seed }) as NumericsRequest;
    const first = shared.numerics(request(1));
    const second = shared.time(undefined as never, undefined as never, "");
    const third = shared.numerics(request(3));
    await tick();
    expect(fake.started).toEqual(["numerics 1"]);
    fake.finish(0);
    await first;
    await tick();
    expect(fake.started).toEqual(["numerics 1", "fail time"]);
    fake.finish(1);
    await expect(second).rejects.toThrow("fail time faulted");
    await tick();
    expect(fake.started).toEqual(["numerics 1", "fail time", "numerics 3"]);
    fake.finish(2);
    await third;
    expect(fake.maxOverlap()).toBe(1);
  });

  it("is what a batch with a GPU and --jobs 2 grades with, in-process; without one it takes worker threads", async () => {
    const fake = fakeGpu();
    const withGpu = createSubmissionGrader({ binding, manifest, gpu: fake.gpu }, 2);
    expect([withGpu.mode, withGpu.concurrency]).toEqual(["in-process", 2]);
    const withoutGpu = createSubmissionGrader({ binding, manifest }, 2);
    expect([withoutGpu.mode, withoutGpu.concurrency]).toEqual(["worker threads", 2]);
    await withoutGpu.dispose();
    expect(createSubmissionGrader({ binding, manifest }, 1).mode).toBe("in-process");
  });
});

describe("pass rates per task", () => {
  const outcomes = [
    graded("a", 30, [
      ["t1", 20, 20],
      ["t2", 10, 10],
      ["t3", 0, 0],
    ]),
    graded("b", 15, [
      ["t1", 5, 20],
      ["t2", 10, 10],
      ["t3", 0, 0],
    ]),
    graded("c", 0, [
      ["t1", 0, 20],
      ["t2", 0, 10],
      ["t3", 0, 0],
    ]),
    failed("d"),
  ];
  const tasks = [
    { id: "t1", title: "Task one" },
    { id: "t2", title: "Task two" },
    { id: "t3", title: "Timed task" },
  ];
  const small = { ...manifest, tasks: tasks.map((t) => ({ ...manifest.tasks[0]!, ...t })) };

  it("count full, partial and no points over all submissions, a failed one earning none", () => {
    expect(taskPassRates(outcomes, small)).toEqual([
      { id: "t1", title: "Task one", taskPoints: 20, maxPoints: 20, full: 1, partial: 1, none: 2, meanPoints: 25 / 4 },
      { id: "t2", title: "Task two", taskPoints: 20, maxPoints: 10, full: 2, partial: 0, none: 2, meanPoints: 5 },
      { id: "t3", title: "Timed task", taskPoints: 20, maxPoints: 0, full: 0, partial: 0, none: 4, meanPoints: 0 },
    ]);
  });

  it("print as a markdown table", () => {
    const lines = passRatesMarkdown(taskPassRates(outcomes, small), outcomes.length).split("\n");
    expect(lines[0]).toBe("Pass rates per task (4 submissions; ungraded ones count as 0 points)");
    expect(lines.slice(2)).toEqual([
      "| Task | Points | Full points | Partial | None | Mean points |",
      "|---|---:|---:|---:|---:|---:|",
      "| Task one | 20 | 1 (25%) | 1 | 2 | 6.3 |",
      "| Task two | 10 | 2 (50%) | 0 | 2 | 5.0 |",
      "| Timed task | 0 | – | – | – | – (all its checks were skipped) |",
      "",
    ]);
  });
});

describe("the score histogram", () => {
  it("bins the scores over 0..max, failures stacked as not graded", async () => {
    const outcomes = [0, 0, 10, 55, 80, 80, 80].map((score, n) => graded(`s${n}`, score, [["t", score, 80]]));
    const svg = await scoreHistogramSvg([...outcomes, failed("broken")], { title: "Scores of the test batch" });
    expect(svg).toMatch(/^<svg /);
    const bars = [...svg.matchAll(/aria-label="Score \(of 80\): ([^"]*)"/g)].map((m) => m[1]).sort();
    expect(bars).toEqual([
      "0 – 8; Submissions: 1; status: not graded (error)",
      "0 – 8; Submissions: 2; status: graded",
      "48 – 56; Submissions: 1; status: graded",
      "72 – 80; Submissions: 3; status: graded",
      "8 – 16; Submissions: 1; status: graded",
    ]);
    expect(svg).toContain("Title text 'Scores of the test batch'");
  });
});

describe("a submission's files in OUT", () => {
  const outcome: SubmissionOutcome = {
    ...graded("alice", 30, [
      ["t1", 20, 20],
      ["t2", 10, 10],
    ]),
    results: failureResults("x", 1),
    reportText: "report\n",
  } as SubmissionOutcome;

  it("count as done once outcome.json is there, and only if it is an outcome of that submission", async () => {
    const dir = await mkdtemp(join(scratch, "store-"));
    expect(await readStoredOutcome(dir, "alice")).toEqual({ kind: "missing" });
    await storeOutcome(dir, outcome);
    expect((await readdir(dir)).sort()).toEqual(["outcome.json", "report.txt", "results.json"]);
    expect(await readStoredOutcome(dir, "alice")).toEqual({
      kind: "done",
      outcome: graded("alice", 30, [
        ["t1", 20, 20],
        ["t2", 10, 10],
      ]),
    });
    expect(await readStoredOutcome(dir, "bob")).toMatchObject({ kind: "invalid", why: expect.stringContaining('is the outcome of "alice", not of "bob"') });
    await writeFile(join(dir, OUTCOME_FILE), '{"name": "alice", "sta');
    expect(await readStoredOutcome(dir, "alice")).toMatchObject({ kind: "invalid", why: expect.stringContaining("is not JSON") });
    await writeFile(join(dir, OUTCOME_FILE), '{"name": "alice", "status": "graded"}');
    expect(await readStoredOutcome(dir, "alice")).toMatchObject({ kind: "invalid", why: expect.stringContaining("is not a batch outcome") });
  });

  it("are written atomically: concurrent writers leave one whole version and no temporary file", async () => {
    const dir = await mkdtemp(join(scratch, "atomic-"));
    const versions = Array.from({ length: 8 }, (_, n) => String(n).repeat(100_000));
    await Promise.all(versions.map((v) => writeAtomically(join(dir, "f.txt"), v)));
    expect(versions).toContain(await readFile(join(dir, "f.txt"), "utf8"));
    expect(await readdir(dir)).toEqual(["f.txt"]);
  });
});

describe("progress lines without a terminal", () => {
  it("give the ETA from the rate so far", () => {
    const io = memoryIO();
    let clock = 0;
    const progress = progressReporter(io, { now: () => clock });
    const results = failureResults("x", 0);
    progress.start(4);
    clock = 10_000;
    progress.finished({ ...graded("a", 80, []), maxScore: 80, results, reportText: "" } as SubmissionOutcome);
    clock = 20_000;
    progress.finished({ ...failed("b"), results, reportText: "" } as SubmissionOutcome);
    clock = 150_000;
    progress.finished({ ...graded("c", 40, []), maxScore: 80, results, reportText: "" } as SubmissionOutcome);
    expect(io.err.join("")).toBe(
      ["[1/4] a: 80 / 80 (1.0 s), ETA 30.0s", "[2/4] b: error (0.0 s): b.zip is broken, ETA 20.0s", "[3/4] c: 40 / 80 (1.0 s), ETA 50.0s", ""].join("\n"),
    );
  });
});

describe("a batch in two shards, merged, then resumed after a kill", () => {
  // Shard 1's two grade-worker threads (and their rounds workers) from the bundle `pnpm grade` uses, not through tsx.
  useBundledGraderWorkers();
  let dir: string;
  let out: string;
  let shard1: BatchResult;
  let shard2: BatchResult;
  const settings = { binding, manifest, noGpuReason: "test without a GPU", numerics: { rounds: 1 } };

  beforeAll(async () => {
    dir = join(scratch, "scale-submissions");
    out = join(scratch, "scale-out");
    await mkdir(dir, { recursive: true });
    const starter = writeZip(await Promise.all(HANDIN_FILES.map(async (name) => ({ name, data: await readFile(join(assignmentRoot(), name)) }))));
    await writeFile(join(dir, "starter.zip"), starter);
    await writeFile(join(dir, "broken.zip"), starter.subarray(0, starter.length - 30));
    await writeFile(join(dir, "notazip.zip"), "not a zip");
    await mkdir(join(dir, "empty"));
    for (const name of ["syntax-error", "missing-export"] as const) {
      const written = await writeSubmission(name);
      await mkdir(join(dir, name));
      for (const f of ["gemm_relu_add.ts", "trace_submission.ts"]) await copyFile(join(written.dir, f), join(dir, name, f));
      await written.remove();
    }
    // Sorted: broken, empty, missing-export, notazip, starter, syntax-error. Shard 1 (in worker
    // threads) gets missing-export, whose numerics run in the simulator.
    shard1 = await runBatch({ ...settings, dir, out, jobs: 2, shard: { index: 1, count: 2 } });
    shard2 = await runBatch({ ...settings, dir, out, jobs: 1, shard: { index: 2, count: 2 } });
  }, 240_000);

  it("grades each shard's part (--jobs 2 in worker threads), its reports covering the shard", async () => {
    expect([shard1.mode, shard1.concurrency]).toEqual(["worker threads", 2]);
    expect(shard1.outcomes.map((o) => [o.name, o.status === "graded" ? o.score : o.status])).toEqual([
      ["broken", "error"],
      ["missing-export", 60],
      ["starter", 0],
    ]);
    expect(shard2.outcomes.map((o) => [o.name, o.status === "graded" ? o.score : o.status])).toEqual([
      ["empty", "error"],
      ["notazip", "error"],
      ["syntax-error", 0],
    ]);
    const summary = await readFile(join(out, "summary.csv"), "utf8");
    expect(
      summary
        .trim()
        .split("\r\n")
        .slice(1)
        .map((row) => row.split(",")[0]),
    ).toEqual(["empty", "notazip", "syntax-error"]);
    expect(await readFile(join(out, "histogram.svg"), "utf8")).toContain("Title text 'Scores of 3 submissions (shard 2/2)'");
  });

  it("merges into reports of every submission", async () => {
    const merged = await mergeBatch({ dir, out, manifest });
    expect(merged.missing).toEqual([]);
    expect(merged.outcomes.map((o) => o.name)).toEqual(["broken", "empty", "missing-export", "notazip", "starter", "syntax-error"]);
    expect(merged.outcomes).toEqual([...shard1.outcomes, ...shard2.outcomes].sort((a, b) => (a.name < b.name ? -1 : 1)));
    const summary = await readFile(join(out, "summary.csv"), "utf8");
    expect(summary.trim().split("\r\n")).toHaveLength(7);
    expect(await readFile(join(out, "pass-rates.md"), "utf8")).toContain("Pass rates per task (6 submissions;");
    expect(await readFile(join(out, "histogram.svg"), "utf8")).toContain("Title text 'Scores of 6 submissions'");
  });

  it("after a kill, grades again only what has no complete outcome", async () => {
    // Killed while writing starter's files (no outcome.json yet); notazip's outcome.json hand-edited into nonsense.
    await rm(join(out, "starter", OUTCOME_FILE));
    await writeFile(join(out, "notazip", OUTCOME_FILE), "{");
    const mergedEarly = await mergeBatch({ dir, out, manifest });
    expect(mergedEarly.missing).toEqual(["notazip", "starter"]);
    const resumed = await runBatch({ ...settings, dir, out, jobs: 1 });
    expect(resumed.gradedNow).toEqual(["notazip", "starter"]);
    expect(resumed.invalidRecords).toEqual([expect.stringContaining("notazip/outcome.json is not JSON")]);
    expect(resumed.outcomes.map((o) => o.name)).toEqual(["broken", "empty", "missing-export", "notazip", "starter", "syntax-error"]);
    expect((await mergeBatch({ dir, out, manifest })).missing).toEqual([]);
  }, 120_000);
});

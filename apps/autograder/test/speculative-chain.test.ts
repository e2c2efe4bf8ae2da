/**
 * The chain's speculative runs (src/grade/speculative-runs.ts): after a task fails, the run that
 * follows if the next task fails too is started early. Guessing may change how long part 1 takes,
 * never what it reports: the chain graded with and without guesses must agree, for any pattern of
 * failing tasks, and guesses nobody read are killed.
 */
import { Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { manifestPath } from "../../../assignments/gemm-relu-add/src/index.js";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { type ChainResult, runChain } from "../src/grade/chain.js";
import { SpeculativeRuns } from "../src/grade/speculative-runs.js";
import { type Manifest, type Task, loadManifest } from "../src/manifest/index.js";
import type { FileRun, Job, PreparedFile, RunOptions } from "../src/sandbox/index.js";
import type { JobResult } from "../src/sandbox/protocol.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
let manifest: Manifest;
let chained: Task[];

beforeAll(async () => {
  manifest = await loadManifest(manifestPath());
  chained = manifest.tasks.filter((t) => t.part === 1 && t.start === "previous-task");
});

/** A sandbox stand-in: each listed task throws, every other one completes without scheduling anything. */
class FakeFile implements PreparedFile {
  readonly file = "gemm_relu_add.ts";
  readonly started: Job[][] = [];
  readonly aborted: Job[][] = [];
  running = 0;
  mostAtOnce = 0;

  constructor(private readonly failing: ReadonlySet<string>) {}

  async run(jobs: readonly Job[], _limits?: unknown, options: RunOptions = {}): Promise<FileRun> {
    this.started.push([...jobs]);
    options.signal?.addEventListener("abort", () => this.aborted.push([...jobs]));
    this.running++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    // A run takes a while, so that the chain can start the next one meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.running--;
    const results = new Map<string, JobResult>();
    for (const job of jobs) {
      if (this.failing.has(job.id)) {
        results.set(job.id, { id: job.id, ok: false, error: { name: "Error", message: `TODO: ${job.call}` }, millis: 1 });
        break;
      }
      results.set(job.id, { id: job.id, ok: true, trace: emptyTrace(), millis: 1 });
    }
    return { file: this.file, load: { ok: true, exports: [] }, results, exit: { kind: "finished" }, stdout: "", stderr: "", invalidMessages: 0, millis: 5 };
  }

  async dispose(): Promise<void> {}
}

function emptyTrace(): unknown {
  return new Schedule(binding.workload(64)).trace.toJSON();
}

function chain(failing: ReadonlySet<string>, speculate: boolean): Promise<{ result: ChainResult; file: FakeFile }> {
  const file = new FakeFile(failing);
  return runChain({ manifest, binding, file, limits: { timeoutMs: 1000, heapMb: 64 }, speculate }, chained).then((result) => ({ result, file }));
}

/** What a student sees of the chain: per task its error and each check's verdict and feedback, and the notes. */
function verdicts(r: ChainResult): unknown {
  return {
    tasks: r.tasks.map((g) => ({ id: g.task.id, error: g.error, checks: g.checks.map((c) => [c.check.id, c.status, c.feedback]), notes: g.notes })),
    replaced: r.replaced,
    reset: r.reset,
    notes: r.notes,
    composed: r.composed.script(),
  };
}

describe("the chain's speculative runs", () => {
  it("a starter (every task throws) needs no more runs than without guesses, and runs two at once", async () => {
    const all = new Set(chained.map((t) => t.id));
    const guessing = await chain(all, true);
    const plain = await chain(all, false);
    expect(verdicts(guessing.result)).toEqual(verdicts(plain.result));
    expect(chained.length).toBeGreaterThan(2);
    expect(plain.file.started).toHaveLength(chained.length);
    expect(guessing.file.started).toHaveLength(chained.length);
    expect(plain.file.mostAtOnce).toBe(1);
    expect(guessing.file.mostAtOnce).toBe(2);
    expect(guessing.file.aborted).toEqual([]);
  });

  it("a wrong guess is killed, and the verdicts are those graded without guesses", async () => {
    const [first, , third] = chained;
    const guessing = await chain(new Set([first!.id, third!.id]), true);
    const plain = await chain(new Set([first!.id, third!.id]), false);
    expect(verdicts(guessing.result)).toEqual(verdicts(plain.result));
    expect(guessing.file.aborted.length).toBeGreaterThan(0);
  });

  it("whichever tasks fail, guessing never changes a verdict (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.subarray(chained.map((t) => t.id)), async (failing) => {
        const set = new Set(failing);
        const [guessing, plain] = await Promise.all([chain(set, true), chain(set, false)]);
        expect(verdicts(guessing.result)).toEqual(verdicts(plain.result));
        // A complete submission never pays for a guess.
        if (set.size === 0) expect(guessing.file.started).toHaveLength(1);
      }),
      { numRuns: 25 },
    );
  });
});

describe("SpeculativeRuns", () => {
  const jobs = (script: string): Job[] => [{ id: "t", call: "f", start: { kind: "script", script }, args: [] }];

  it("hands out a run started ahead for exactly the same jobs, once", async () => {
    const file = new FakeFile(new Set());
    const runs = new SpeculativeRuns(file, { timeoutMs: 1000, heapMb: 64 });
    runs.prefetch(jobs("a"));
    runs.prefetch(jobs("a"));
    expect(file.started).toHaveLength(1);
    await runs.run(jobs("a"));
    expect(file.started).toHaveLength(1);
    await runs.run(jobs("a"));
    expect(file.started).toHaveLength(2);
    await runs.close();
  });

  it("kills the runs nobody read when closed", async () => {
    const file = new FakeFile(new Set());
    const runs = new SpeculativeRuns(file, { timeoutMs: 1000, heapMb: 64 });
    runs.prefetch(jobs("a"));
    runs.prefetch(jobs("b"));
    await runs.run(jobs("b"));
    expect(runs.waiting).toBe(1);
    await runs.close();
    expect(file.aborted).toEqual([jobs("a")]);
    expect(runs.waiting).toBe(0);
  });
});

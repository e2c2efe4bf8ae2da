/**
 * The sandbox runs student files in a child process: these fixtures are the broken and hostile
 * submissions the autograder must survive, each checked for the exact outcome.
 */
import { join } from "node:path";
import { Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { type FileRun, type Job, prepareSubmissionFile } from "../src/sandbox/index.js";
import { digestOf, keepRuntimeCodeCache } from "../src/sandbox/run.js";
import { sandboxRuntime } from "../src/sandbox/runtime-source.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "sandbox");
const start = workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), 256);
const tiling: Job = { id: "t1", call: "sharedMemoryTiling", start, args: [64, 64, 8] };

async function runFixture(name: string, jobs: Job[], limits = { timeoutMs: 20_000, heapMb: 256 }): Promise<FileRun> {
  const prepared = await prepareSubmissionFile(join(FIXTURES, name), "gemm_relu_add.ts");
  try {
    return await prepared.run(jobs, limits);
  } finally {
    await prepared.dispose();
  }
}

describe("sandboxed submission runs", () => {
  it("runs a good task, returns its trace and the blocks it returned; helpers in the submission resolve", async () => {
    const run = await runFixture("ok", [tiling, { id: "name", call: "renameNothing", start: { kind: "previous" }, args: [{ block: "A_shared" }] }]);
    expect(run.load).toEqual({ ok: true, exports: ["renameNothing", "sharedMemoryTiling"] });
    expect(run.exit).toEqual({ kind: "finished" });
    const r = run.results.get("t1");
    expect(r?.ok).toBe(true);
    if (r?.ok !== true) return;
    expect(r.returnedBlocks).toEqual(["A_shared", "B_shared"]);
    const trace = Trace.fromJSON(r.trace);
    expect(trace.instructions.map((i) => i.kind.name)).toContain("CacheRead");
    expect(run.results.get("name")?.ok).toBe(true);
  });

  it("compiles the runtime from the code cache an earlier run produced, with the same results", async () => {
    const prepared = await prepareSubmissionFile(join(FIXTURES, "ok"), "gemm_relu_add.ts");
    try {
      const runs = [await prepared.run([tiling]), await prepared.run([tiling])];
      expect(["produced", "accepted"]).toContain(runs[0]?.runtimeCache);
      expect(runs[1]?.runtimeCache).toBe("accepted");
      const traces = runs.map((run) => {
        const r = run.results.get("t1");
        return r?.ok === true ? r.trace : r;
      });
      expect(traces[1]).toEqual(traces[0]);
    } finally {
      await prepared.dispose();
    }
  });

  it("compiles the runtime without a code cache that V8 rejects, and produces a good one again", async () => {
    keepRuntimeCodeCache(digestOf((await sandboxRuntime()).code), Buffer.from("not a code cache"));
    const prepared = await prepareSubmissionFile(join(FIXTURES, "ok"), "gemm_relu_add.ts");
    try {
      const rejected = await prepared.run([tiling]);
      expect(rejected.runtimeCache).toBe("rejected");
      expect(rejected.results.get("t1")?.ok).toBe(true);
      expect((await prepared.run([tiling])).runtimeCache).toBe("produced");
    } finally {
      await prepared.dispose();
    }
  });

  it("reports a missing export by name", async () => {
    const run = await runFixture("ok", [{ id: "t2", call: "registerTiling", start, args: [4, 4, 1] }]);
    const r = run.results.get("t2");
    expect(r?.ok).toBe(false);
    if (r?.ok !== false) return;
    expect(r.error).toMatchObject({ name: "MissingExport", message: "gemm_relu_add.ts does not export `registerTiling`" });
  });

  it("reports a syntax error with file, line and column, without running anything", async () => {
    const run = await runFixture("syntax", [tiling]);
    expect(run.load.ok).toBe(false);
    if (run.load.ok || run.load.stage !== "build") throw new Error("expected a build failure");
    expect(run.load.diagnostics[0]).toMatch(/^gemm_relu_add\.ts:2:\d+: Expected/);
    expect(run.results.size).toBe(0);
  });

  it("reports a module that throws while being imported", async () => {
    const run = await runFixture("top-level-throw", [tiling]);
    expect(run.load).toMatchObject({ ok: false, stage: "import", error: { message: "module crashed on import" } });
  });

  it("turns a throwing task into that task's error with the student's stack frame", async () => {
    const run = await runFixture("throws", [tiling]);
    const r = run.results.get("t1");
    expect(r?.ok).toBe(false);
    if (r?.ok !== false) return;
    expect(r.error.name).toBe("HasInitBlock");
    expect(r.error.message).toMatch(/init statement: "gemm"/);
    expect(r.error.stack).toMatch(/gemm_relu_add\.ts:4:\d+/);
  });

  it("stops an infinite loop at the time limit and keeps what finished before", async () => {
    const run = await runFixture("loop", [{ id: "t2", call: "registerTiling", start, args: [] }, tiling], { timeoutMs: 3000, heapMb: 256 });
    expect(run.exit).toEqual({ kind: "timeout", afterMs: 3000 });
    expect(run.results.get("t2")?.ok).toBe(true);
    expect(run.results.has("t1")).toBe(false);
  });

  it("stops a memory bomb at the heap limit", async () => {
    const run = await runFixture("bomb", [tiling], { timeoutMs: 30_000, heapMb: 128 });
    expect(run.exit?.kind).toBe("out-of-memory");
    expect(run.results.has("t1")).toBe(false);
  });

  it("refuses, at bundling time, an import that reaches outside the submission (the solution)", async () => {
    const run = await runFixture("escape-import", [tiling]);
    if (run.load.ok || run.load.stage !== "build") throw new Error("expected a build failure");
    expect(run.load.diagnostics.join("\n")).toMatch(/outside the submission/);
  });

  it("refuses Node built-ins loaded at run time (dynamic import, require through eval)", async () => {
    const run = await runFixture("escape-dynamic", [tiling, { id: "req", call: "readWithRequire", start, args: [] }]);
    const r = run.results.get("t1");
    expect(r?.ok === false && r.error.message).toMatch(/^a submission may not load "node:fs"/);
    const q = run.results.get("req");
    expect(q?.ok === false && q.error.message).toMatch(/^a submission may not load "child_process"/);
  });

  it("refuses a submission that tries to write results.json", async () => {
    const run = await runFixture("write-results", [tiling]);
    if (run.load.ok || run.load.stage !== "build") throw new Error("expected a build failure");
    expect(run.load.diagnostics.join("\n")).toMatch(/imports Node's "fs" module/);
  });

  it("keeps the result channel out of the submission's reach (no forged results)", async () => {
    const run = await runFixture("forge-channel", [tiling]);
    const r = run.results.get("t1");
    expect(r?.ok).toBe(false);
    if (r?.ok !== false) return;
    expect(r.error.name).toBe("ReferenceError");
    expect(r.error.message).toMatch(/__tesseraSend is not defined/);
  });

  it("has no process object, so process.exit(0) is an error of that task", async () => {
    const run = await runFixture("exit-zero", [tiling]);
    expect(run.exit).toEqual({ kind: "finished" });
    const r = run.results.get("t1");
    expect(r?.ok === false && r.error.message).toBe("process is not defined");
  });

  it("keeps printed output as the student's output, never as results", async () => {
    const run = await runFixture("fake-output", [tiling]);
    expect(run.stdout).toContain("Score: 100/100");
    const r = run.results.get("t1");
    // The task ran (it did nothing), and its real trace is empty: printing did not forge anything.
    expect(r?.ok).toBe(true);
    if (r?.ok !== true) return;
    expect(Trace.fromJSON(r.trace).instructions).toHaveLength(0);
  });
});

/**
 * A prepared file keeps its sandbox host for its later runs: each run in a fresh isolate, with the
 * run's own time and memory limits, and a run that ends badly (timeout, memory, cancelled) ends its
 * host, so the next run starts a fresh process. These tests pin that isolation between the runs of
 * one host, the limits per run, and when a host is kept or ended.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { MAX_RUNS_PER_HOST, servesAgain } from "../src/sandbox/host-process.js";
import { runCpuSeconds } from "../src/sandbox/os-confinement.js";
import { type FileRun, type Job, type PreparedFile, type SandboxLimits, prepareSubmissionFile } from "../src/sandbox/index.js";
import { lingering } from "./support/processes.js";

const FILE = "gemm_relu_add.ts";
const start = workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), 64);
const limits: SandboxLimits = { timeoutMs: 20_000, heapMb: 256 };
const job = (call: string): Job => ({ id: call, call, start, args: [] });

/** A submission whose functions report, by throwing, what they see of earlier runs; and ones that loop, hoard or busy-wait. */
const SOURCE = `
let calls = 0;
export function state(): void {
  calls++;
  const g = globalThis as any;
  g.seen = (g.seen ?? 0) + 1;
  const polluted = ({} as any).polluted;
  (Object.prototype as any).polluted = "yes";
  throw new Error("calls " + calls + ", seen " + g.seen + ", polluted " + polluted);
}
export function ok(): void {}
export function loop(): void { for (;;) {} }
export function hoard(): number { const h: string[][] = []; for (;;) h.push(new Array(1e6).fill("x")); }
export function busy(ms: number): void { const end = Date.now() + ms; while (Date.now() < end) {} }
`;

let scratch: string;
let dir: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-hosts-"));
  dir = join(scratch, "submission");
  await mkdir(dir);
  await writeFile(join(dir, FILE), SOURCE);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function withFile<T>(use: (file: PreparedFile) => Promise<T>): Promise<T> {
  const file = await prepareSubmissionFile(dir, FILE);
  try {
    return await use(file);
  } finally {
    await file.dispose();
  }
}

function errorOf(run: FileRun, id: string): string | undefined {
  const r = run.results.get(id);
  return r?.ok === false ? r.error.message : undefined;
}

describe("sandbox hosts kept for a prepared file's runs", () => {
  it("runs the file's later runs in the same host, each in a fresh isolate that sees nothing of the runs before", async () => {
    await withFile(async (file) => {
      const runs = [await file.run([job("state")], limits), await file.run([job("state")], limits), await file.run([job("state")], limits)];
      expect(runs.map((r) => r.host?.run)).toEqual([1, 2, 3]);
      expect(new Set(runs.map((r) => r.host?.pid)).size).toBe(1);
      for (const run of runs) {
        expect(run.exit).toEqual({ kind: "finished" });
        expect(errorOf(run, "state")).toBe("calls 1, seen 1, polluted undefined");
      }
    });
  });

  it("gives each run its own time limit, counted from its own start", async () => {
    await withFile(async (file) => {
      const busy: Job = { id: "busy", call: "busy", start, args: [1200] };
      const tight: SandboxLimits = { timeoutMs: 2000, heapMb: 256 };
      const first = await file.run([busy], tight);
      const second = await file.run([busy], tight);
      expect([first.exit, second.exit]).toEqual([{ kind: "finished" }, { kind: "finished" }]);
      expect(second.host).toEqual({ pid: first.host?.pid, run: 2 });
      const looped = await file.run([job("loop")], tight);
      expect(looped.exit).toEqual({ kind: "timeout", afterMs: 2000 });
      expect(looped.host).toEqual({ pid: first.host?.pid, run: 3 });
      // The host that timed out is gone; the next run gets a fresh one.
      expect(await lingering([first.host?.pid ?? -1])).toEqual([]);
      const after = await file.run([job("ok")], tight);
      expect(after.exit).toEqual({ kind: "finished" });
      expect(after.host?.run).toBe(1);
      expect(after.host?.pid).not.toBe(first.host?.pid);
    });
  });

  it("gives each run its own memory limit, and ends the host of a run that hit it", async () => {
    await withFile(async (file) => {
      const small: SandboxLimits = { timeoutMs: 30_000, heapMb: 128 };
      const first = await file.run([job("ok")], small);
      const bomb = await file.run([job("hoard")], small);
      expect(bomb.exit?.kind).toBe("out-of-memory");
      expect(bomb.host).toEqual({ pid: first.host?.pid, run: 2 });
      const after = await file.run([job("ok")], small);
      expect(after.exit).toEqual({ kind: "finished" });
      expect(after.host?.pid).not.toBe(first.host?.pid);
    });
  });

  it("starts a host of its own for a run that overlaps another, and for other limits", async () => {
    await withFile(async (file) => {
      const [a, b] = await Promise.all([file.run([job("ok")], limits), file.run([job("ok")], limits)]);
      expect([a.exit, b.exit]).toEqual([{ kind: "finished" }, { kind: "finished" }]);
      expect(a.host?.pid).not.toBe(b.host?.pid);
      const other = await file.run([job("ok")], { timeoutMs: 19_000, heapMb: 256 });
      expect([a.host?.pid, b.host?.pid]).not.toContain(other.host?.pid);
      const same = await file.run([job("ok")], limits);
      expect([a.host?.pid, b.host?.pid]).toContain(same.host?.pid);
    });
  });

  it("kills the host of a cancelled run; the next run starts a fresh one", async () => {
    await withFile(async (file) => {
      const first = await file.run([job("ok")], limits);
      const abort = new AbortController();
      const cancelled = file.run([job("loop")], limits, { signal: abort.signal });
      setTimeout(() => abort.abort(), 300);
      const run = await cancelled;
      expect(run.exit).toMatchObject({ kind: "crashed", signal: "SIGKILL" });
      expect(run.host?.pid).toBe(first.host?.pid);
      const after = await file.run([job("ok")], limits);
      expect(after.host?.pid).not.toBe(first.host?.pid);
      expect(after.exit).toEqual({ kind: "finished" });
    });
  });

  it("ends every host when the file is disposed of", async () => {
    const pids = await withFile(async (file) => {
      const runs = await Promise.all([file.run([job("ok")], limits), file.run([job("ok")], limits)]);
      return runs.map((r) => r.host?.pid ?? -1);
    });
    expect(await lingering(pids)).toEqual([]);
  });

  it("lets a grader process end normally once dispose() has ended the idle host", async () => {
    const script = join(import.meta.dirname, "fixtures", "sandbox-hosts", "dispose-and-exit.ts");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--conditions=@tessera/source", script], { timeout: 60_000 });
    expect(JSON.parse(stdout.trim())).toEqual({ exit: { kind: "finished" }, host: "gone" });
  });
});

describe("when a host serves another run", () => {
  const finished = { kind: "finished" } as const;
  const budgetMs = runCpuSeconds(limits.timeoutMs) * 1000;
  const after = { ended: "run-end", exit: finished, cpuMs: 500, runs: 1, timeoutMs: limits.timeoutMs } as const;

  it("after a run that finished and said so, within one run's CPU budget and the cap on runs", () => {
    expect(servesAgain(after)).toBe(true);
    expect(servesAgain({ ...after, cpuMs: budgetMs })).toBe(true);
    expect(servesAgain({ ...after, runs: MAX_RUNS_PER_HOST - 1 })).toBe(true);
  });

  it("never after a run that did not finish, nor once the host has used a run's CPU budget or served its last run", () => {
    expect(servesAgain({ ...after, exit: { kind: "timeout", afterMs: 1 } })).toBe(false);
    expect(servesAgain({ ...after, exit: { kind: "out-of-memory" } })).toBe(false);
    expect(servesAgain({ ...after, exit: { kind: "crashed", code: 70, signal: undefined } })).toBe(false);
    expect(servesAgain({ ...after, ended: "exit" })).toBe(false);
    expect(servesAgain({ ...after, cpuMs: budgetMs + 1 })).toBe(false);
    expect(servesAgain({ ...after, runs: MAX_RUNS_PER_HOST })).toBe(false);
  });
});

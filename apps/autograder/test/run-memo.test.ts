/**
 * Sandboxed runs remembered by content (run-memo.ts): the same file content run on the same jobs
 * under the same limits, from another folder, gets the first run's results without a host; other
 * content, jobs or limits run anew, a run that timed out is never remembered, and a file prepared
 * without a memo always runs.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { type FileRun, type Job, SandboxRunMemo, type SandboxLimits, prepareSubmissionFile } from "../src/sandbox/index.js";

const FILE = "gemm_relu_add.ts";
const start = workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), 64);
const limits: SandboxLimits = { timeoutMs: 20_000, heapMb: 256 };
const job = (call: string, args: number[] = []): Job => ({ id: call, call, start, args });

/** Each call says, by throwing, how often this isolate ran it: a remembered run repeats the first one's answer. */
const SOURCE = `
let calls = 0;
export function count(_sch: unknown, tag: number): void {
  calls++;
  throw new Error("tag " + tag + ": call " + calls);
}
export function loop(): void { for (;;) {} }
`;

let scratch: string;
async function submission(name: string, source: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir);
  await writeFile(join(dir, FILE), source);
  return dir;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-run-memo-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function runOnce(dir: string, jobs: readonly Job[], memo: SandboxRunMemo | undefined, runLimits = limits): Promise<FileRun> {
  const file = await prepareSubmissionFile(dir, FILE, memo === undefined ? {} : { memo });
  try {
    return await file.run(jobs, runLimits);
  } finally {
    await file.dispose();
  }
}

function messages(run: FileRun): string[] {
  return [...run.results.values()].map((r) => (r.ok ? "ok" : r.error.message));
}

describe("SandboxRunMemo", () => {
  it("gives a second run of the same content, jobs and limits the first run's results, from another folder, without a host", async () => {
    const memo = new SandboxRunMemo();
    const first = await runOnce(await submission("a", SOURCE), [job("count", [1])], memo);
    expect(messages(first)).toEqual(["tag 1: call 1"]);
    expect(first.exit).toEqual({ kind: "finished" });
    const again = await runOnce(await submission("b", SOURCE), [job("count", [1])], memo);
    expect(memo.stats).toEqual({ hits: 1, misses: 1 });
    expect(again.load).toEqual(first.load);
    expect(messages(again)).toEqual(["tag 1: call 1"]);
    expect(again.host).toEqual(first.host);
    // The results map is each caller's own.
    expect(again.results).not.toBe(first.results);
  });

  it("runs anew for other content, other jobs or other limits", async () => {
    const memo = new SandboxRunMemo();
    const dir = await submission("c", SOURCE);
    const first = await runOnce(dir, [job("count", [1])], memo);
    const otherJobs = await runOnce(dir, [job("count", [2])], memo);
    expect(messages(otherJobs)).toEqual(["tag 2: call 1"]);
    const otherLimits = await runOnce(dir, [job("count", [1])], memo, { ...limits, heapMb: 300 });
    expect(otherLimits.host?.pid).not.toBe(first.host?.pid);
    const otherContent = await runOnce(await submission("d", `${SOURCE}\nexport const extra = 1;\n`), [job("count", [1])], memo);
    expect(otherContent.host?.pid).not.toBe(first.host?.pid);
    expect(memo.stats).toEqual({ hits: 0, misses: 4 });
  });

  it("never remembers a run that did not finish, and a file prepared without a memo always runs", async () => {
    const memo = new SandboxRunMemo();
    const dir = await submission("e", SOURCE);
    const tight = { timeoutMs: 500, heapMb: 256 };
    const timedOut = await runOnce(dir, [job("loop")], memo, tight);
    expect(timedOut.exit?.kind).toBe("timeout");
    const again = await runOnce(dir, [job("loop")], memo, tight);
    expect(again.exit?.kind).toBe("timeout");
    expect(memo.stats).toEqual({ hits: 0, misses: 2 });
    const plain = await runOnce(dir, [job("count", [1])], undefined);
    const plainAgain = await runOnce(dir, [job("count", [1])], undefined);
    expect(plainAgain.host?.pid).not.toBe(plain.host?.pid);
  });
});

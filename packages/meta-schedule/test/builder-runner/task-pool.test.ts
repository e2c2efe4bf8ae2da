import { afterEach, describe, expect, it } from "vitest";
import { TaskPool } from "../../src/isolation/task-pool.js";
import { resolveEntryPoint } from "../../src/isolation/entry-point.js";
import { REPLAY_WORKER_YOUNG_GENERATION_MB, replayWorkerLimits } from "../../src/search/replay-pool.js";
import { raisedLimits, workerDefaultLimits } from "../../src/isolation/worker-heap-limits.js";

const entry = resolveEntryPoint(import.meta.url, { module: "rendezvous-worker", bundle: "unused.mjs" });

interface Rendezvous {
  readonly counter: Int32Array;
  readonly expected: number;
  readonly waitMs: number;
}

function rendezvous(expected: number, waitMs: number): Rendezvous {
  return { counter: new Int32Array(new SharedArrayBuffer(4)), expected, waitMs };
}

describe("TaskPool of worker threads", () => {
  let pool: TaskPool<unknown, boolean> | undefined;
  afterEach(async () => {
    await pool?.dispose();
    pool = undefined;
  });

  it("runs as many tasks at once as it has workers", async () => {
    pool = new TaskPool({ kind: "thread", entry, size: 3 });
    const meeting = rendezvous(3, 30_000);
    const outcomes = await Promise.all([0, 1, 2].map(() => pool!.run(meeting, 60_000)));
    // Each task saw all three in flight: they ran in three workers at the same time.
    expect(outcomes).toEqual([0, 1, 2].map(() => ({ ok: true, value: true })));
    expect(pool.spawned).toBe(3);
  });

  it("runs one task at a time with one worker", async () => {
    pool = new TaskPool({ kind: "thread", entry, size: 1 });
    const meeting = rendezvous(2, 200);
    const outcomes = await Promise.all([0, 1].map(() => pool!.run(meeting, 60_000)));
    // The first gave up waiting for a second task that could not start; the second then found two arrivals.
    expect(outcomes).toEqual([
      { ok: true, value: false },
      { ok: true, value: true },
    ]);
  });

  it("fails a task that cannot be sent to a worker, and goes on", async () => {
    pool = new TaskPool({ kind: "thread", entry, size: 1 });
    const bad = await pool.run({ counter: () => 0 }, 60_000);
    expect(bad).toEqual({ ok: false, kind: "error", error: expect.stringMatching(/the task cannot be sent to the worker: .*could not be cloned/) });
    expect(await pool.run(rendezvous(1, 1000), 60_000)).toEqual({ ok: true, value: true });
  });

  it("starts its threads with the heap limits asked for, V8's otherwise; a replay pool's young generation is never below V8's default (Node 24 gives 192 MB)", async () => {
    const limitsEntry = resolveEntryPoint(import.meta.url, { module: "limits-worker", bundle: "unused.mjs" });
    type Limits = { maxYoungGenerationSizeMb?: number };
    const limited = new TaskPool<unknown, Limits>({ kind: "thread", entry: limitsEntry, size: 1, resourceLimits: { maxYoungGenerationSizeMb: 160 } });
    const plain = new TaskPool<unknown, Limits>({ kind: "thread", entry: limitsEntry, size: 1 });
    const replay = new TaskPool<unknown, Limits>({ kind: "thread", entry: limitsEntry, size: 1, resourceLimits: replayWorkerLimits });
    try {
      const [a, b, c] = await Promise.all([limited.run({}, 60_000), plain.run({}, 60_000), replay.run({}, 60_000)]);
      expect(a.ok && a.value.maxYoungGenerationSizeMb).toBe(160);
      const v8Default = b.ok ? b.value.maxYoungGenerationSizeMb : undefined;
      expect(v8Default).toBeGreaterThan(0);
      // The probe reads what a thread started without limits gets.
      expect(workerDefaultLimits()?.maxYoungGenerationSizeMb).toBe(v8Default);
      expect(c.ok && c.value.maxYoungGenerationSizeMb).toBe(Math.max(REPLAY_WORKER_YOUNG_GENERATION_MB, v8Default!));
    } finally {
      await Promise.all([limited.dispose(), plain.dispose(), replay.dispose()]);
    }
  });

  it("raises asked heap limits to V8's defaults, never lowers them; keeps them as asked without defaults", () => {
    const defaults = { maxYoungGenerationSizeMb: 48, maxOldGenerationSizeMb: 4096, stackSizeMb: 4 };
    expect(raisedLimits({ maxYoungGenerationSizeMb: 96 }, defaults)).toEqual({ maxYoungGenerationSizeMb: 96 });
    expect(raisedLimits({ maxYoungGenerationSizeMb: 96 }, { ...defaults, maxYoungGenerationSizeMb: 192 })).toEqual({});
    expect(raisedLimits({ maxYoungGenerationSizeMb: 96, maxOldGenerationSizeMb: 2048, stackSizeMb: 8 }, defaults)).toEqual({
      maxYoungGenerationSizeMb: 96,
      stackSizeMb: 8,
    });
    expect(raisedLimits({ maxOldGenerationSizeMb: 2048 }, undefined)).toEqual({ maxOldGenerationSizeMb: 2048 });
    expect(raisedLimits({ codeRangeSizeMb: 64 }, { codeRangeSizeMb: 0 })).toEqual({ codeRangeSizeMb: 64 });
  });

  it("fails a task whose worker cannot even be created, and stays usable", async () => {
    pool = new TaskPool({ kind: "thread", entry: { url: new URL("http://example.invalid/worker.js"), typeScript: false }, size: 1 });
    for (let k = 0; k < 2; k++) {
      expect(await pool.run(rendezvous(1, 1000), 60_000)).toEqual({
        ok: false,
        kind: "crash",
        error: expect.stringMatching(/the worker could not be started: /),
      });
    }
  });

  it("fails a task whose result cannot be sent back, and keeps the worker", async () => {
    const unsendable = resolveEntryPoint(import.meta.url, { module: "unsendable-worker", bundle: "unused.mjs" });
    const numbers = new TaskPool<number, unknown>({ kind: "thread", entry: unsendable, size: 1 });
    try {
      expect(await numbers.run(-1, 60_000)).toEqual({
        ok: false,
        kind: "error",
        error: expect.stringMatching(/the result cannot be sent back from the worker: .*could not be cloned/),
      });
      expect(await numbers.run(2, 60_000)).toEqual({ ok: true, value: 2 });
      expect(numbers.spawned).toBe(1);
    } finally {
      await numbers.dispose();
    }
  });

  it("fails the task of a worker that never gets ready, and replaces the worker", async () => {
    const silent = resolveEntryPoint(import.meta.url, { module: "silent-worker", bundle: "unused.mjs" });
    pool = new TaskPool({ kind: "thread", entry: silent, size: 1, startTimeoutMs: 1500 });
    const outcome = await pool.run(rendezvous(1, 1000), 60_000);
    expect(outcome).toEqual({ ok: false, kind: "crash", error: "the worker did not start within 1.5 s" });
  });

  it("rejects a pool without workers", () => {
    expect(() => new TaskPool({ kind: "thread", entry, size: 0 })).toThrow(/size must be a positive integer/);
  });
});

/**
 * The stalled → dead-letter path (a job whose workers keep disappearing fails after
 * maxStalledCount recoveries and is dead-lettered by the worker that notices), and retrying dead
 * letters: the job goes back to the queue with fresh attempts and completes on a healthy worker.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dispatcher, JobFailedError, QueueConfigError, type RunningWorker, handlerFor, startWorker } from "../src/index.js";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "../src/testing.js";
import { SQUARE } from "./support/test-kinds.js";

const binary = redisServerForTests();

async function until<T>(what: string, probe: () => Promise<T | undefined>, limitMs = 20_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(binary === undefined)("dead letters", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(binary);
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it("a job whose workers vanish more than maxStalledCount times is dead-lettered as stalled; a retry completes it", async () => {
    const settings = { prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 1500, stalledIntervalMs: 300, maxStalledCount: 1, attempts: 3, backoffMs: 50 };
    let release: () => void = () => undefined;
    const never = new Promise<void>((resolve) => (release = resolve));
    const taken: string[] = [];
    // A worker that takes the job and then vanishes (force-closed: its lock is no longer renewed).
    const vanishing = async (name: string): Promise<RunningWorker> =>
      startWorker({
        redisUrl: redis.url,
        name,
        settings,
        log: () => undefined,
        handlers: [
          handlerFor(SQUARE, async () => {
            taken.push(name);
            await never;
            throw new Error("released");
          }),
        ],
      });
    const dispatcher = await Dispatcher.open(redis.url, settings);
    const watchers: RunningWorker[] = [];
    try {
      const result = dispatcher.dispatch(SQUARE, { id: "lost", n: 3 }, { key: "lost" });
      result.catch(() => undefined);
      for (const name of ["w1", "w2"]) {
        const worker = await vanishing(name);
        await until(`${name} to take the job`, async () => (taken.includes(name) ? true : undefined));
        // Not awaited: its handler never returns, so the worker never finishes closing.
        void worker.close(true);
      }
      // A live worker's stalled-job check notices the second loss: the job fails and is dead-lettered.
      watchers.push(await vanishing("w3"));
      await expect(result).rejects.toThrow(JobFailedError);
      await expect(result).rejects.toThrow(/stalled/);
      const letter = await until("the dead letter", async () => (await dispatcher.deadLetters()).find((l) => l.jobId === "square.lost"));
      expect(letter).toMatchObject({ kind: "square", payload: { id: "lost", n: 3 } });
      expect(letter.reason).toMatch(/stalled/);
      expect(taken).not.toContain("w3");
      void watchers.pop()?.close(true);

      // Retried: back in the queue, a healthy worker completes it, and the letter is gone.
      watchers.push(
        await startWorker({
          redisUrl: redis.url,
          settings,
          log: () => undefined,
          handlers: [handlerFor(SQUARE, async ({ id, n }) => ({ id, square: n * n, pid: process.pid }))],
        }),
      );
      await dispatcher.retryDeadLetter("square.lost");
      expect(await dispatcher.deadLetters()).toEqual([]);
      expect(await dispatcher.dispatch(SQUARE, { id: "lost", n: 3 }, { key: "lost" })).toMatchObject({ square: 9 });
      await expect(dispatcher.retryDeadLetter("square.nope")).rejects.toThrow(QueueConfigError);
    } finally {
      release();
      for (const w of watchers) await w.close();
      await dispatcher.close();
    }
  }, 60_000);

  it("retry --all puts back every dead letter, also those whose failed job the queue no longer keeps", async () => {
    const settings = { prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 3000, stalledIntervalMs: 500, attempts: 1, backoffMs: 50 };
    let healthy = false;
    const worker = await startWorker({
      redisUrl: redis.url,
      settings,
      log: () => undefined,
      handlers: [
        handlerFor(SQUARE, async ({ id, n }) => {
          if (!healthy) throw new Error("not yet");
          return { id, square: n * n, pid: process.pid };
        }),
      ],
    });
    const dispatcher = await Dispatcher.open(redis.url, settings);
    try {
      for (const id of ["a", "b"]) await expect(dispatcher.dispatch(SQUARE, { id, n: 2 }, { key: id })).rejects.toThrow(/not yet/);
      expect((await dispatcher.deadLetters()).map((l) => l.jobId).sort()).toEqual(["square.a", "square.b"]);
      healthy = true;
      expect((await dispatcher.retryAllDeadLetters()).sort()).toEqual(["square.a", "square.b"]);
      expect(await dispatcher.deadLetters()).toEqual([]);
      for (const id of ["a", "b"]) expect(await dispatcher.dispatch(SQUARE, { id, n: 2 }, { key: id })).toMatchObject({ square: 4 });
    } finally {
      await worker.close();
      await dispatcher.close();
    }
  }, 60_000);
});

if (binary === undefined) describe("dead letters", () => it.skip(NO_REDIS_SERVER, () => {}));

/**
 * Signed jobs (issue 33: a rogue worker on the queue's Redis completed jobs with made-up scores):
 * with a shared key, a worker refuses a payload that is unsigned or forged, and a dispatcher
 * refuses a result that is; signatures are bound to the job, so none can be replayed on another.
 */
import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { JOBS_QUEUE } from "../src/names.js";
import { Dispatcher, JobFailedError, type RunningWorker, handlerFor, startWorker } from "../src/index.js";
import { seal, unseal } from "../src/signing.js";
import { NO_REDIS_SERVER, redisServerForTests } from "../src/testing.js";
import { privateRedis } from "./support/private-redis.js";
import { SQUARE } from "./support/test-kinds.js";

const KEY = "k".repeat(32);
const OTHER_KEY = "o".repeat(32);
const square = handlerFor(SQUARE, async ({ id, n }) => ({ id, square: n * n, pid: process.pid }));

describe("seal and unseal", () => {
  it("verify only the same key, direction, kind and job id", () => {
    const envelope = seal(KEY, "payload", "square", "square.a", { id: "a", n: 2 });
    expect(unseal(KEY, "payload", "square", "square.a", envelope)).toEqual({ ok: true, value: { id: "a", n: 2 } });
    for (const [key, direction, jobId] of [
      [OTHER_KEY, "payload", "square.a"],
      [KEY, "result", "square.a"],
      [KEY, "payload", "square.b"],
    ] as const)
      expect(unseal(key, direction, "square", jobId, envelope)).toMatchObject({ ok: false, reason: expect.stringMatching(/does not verify/) });
    expect(unseal(KEY, "payload", "square", "square.a", { ...envelope, signed: { id: "a", n: 3 } })).toMatchObject({ ok: false });
    expect(unseal(KEY, "payload", "square", "square.a", { id: "a", n: 2 })).toMatchObject({ ok: false, reason: expect.stringMatching(/is not signed/) });
    expect(unseal(undefined, "payload", "square", "square.a", envelope)).toMatchObject({ ok: false, reason: expect.stringMatching(/no key/) });
  });
});

const binary = redisServerForTests();

describe.skipIf(binary === undefined)("signed jobs on redis-server", () => {
  const server = privateRedis(binary);
  const fresh = () => ({ prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 3000, stalledIntervalMs: 500, attempts: 1, backoffMs: 50 });

  it("run when both sides hold the key", async () => {
    const settings = fresh();
    const worker = await startWorker({ redisUrl: server().url, settings, handlers: [square], log: () => undefined, key: KEY });
    const dispatcher = await Dispatcher.open(server().url, settings, KEY);
    try {
      expect(await dispatcher.dispatch(SQUARE, { id: "a", n: 5 })).toMatchObject({ square: 25 });
    } finally {
      await dispatcher.close();
      await worker.close();
    }
  });

  it("a rogue worker's results (unsigned, or with a made-up signature) are refused", async () => {
    for (const forge of [(value: object) => value, (value: object) => ({ signed: value, hmac: "ab".repeat(32) })]) {
      const settings = fresh();
      const connection = new Redis(server().url, { maxRetriesPerRequest: null });
      const rogue = new Worker(JOBS_QUEUE, async () => forge({ id: "a", square: 100, pid: 1 }), { connection, prefix: settings.prefix });
      const dispatcher = await Dispatcher.open(server().url, settings, KEY);
      try {
        const result = dispatcher.dispatch(SQUARE, { id: "a", n: 5 });
        await expect(result).rejects.toThrow(JobFailedError);
        await expect(result).rejects.toThrow(/the worker's result (is not signed|has a signature that does not verify)/);
      } finally {
        await dispatcher.close();
        await rogue.close();
        connection.disconnect();
      }
    }
  });

  it("a worker with the key refuses an unsigned or forged payload into the dead-letter queue", async () => {
    const settings = fresh();
    const workers: RunningWorker[] = [await startWorker({ redisUrl: server().url, settings, handlers: [square], log: () => undefined, key: KEY })];
    const unsigned = await Dispatcher.open(server().url, settings, undefined);
    const connection = new Redis(server().url, { maxRetriesPerRequest: null });
    const queue = new Queue(JOBS_QUEUE, { connection, prefix: settings.prefix });
    try {
      await expect(unsigned.dispatch(SQUARE, { id: "u", n: 1 }, { key: "u" })).rejects.toThrow(/payload is not signed/);
      // Signed for another job id: a replay.
      await queue.add("square", seal(KEY, "payload", "square", "square.elsewhere", { id: "r", n: 1 }), { jobId: "square.replayed" });
      const letters = async () => (await unsigned.deadLetters()).map((l) => [l.jobId, l.reason]);
      for (let i = 0; i < 100 && (await letters()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await letters()).toEqual(
        expect.arrayContaining([
          ["square.u", expect.stringMatching(/is not signed/)],
          ["square.replayed", expect.stringMatching(/does not verify/)],
        ]),
      );
    } finally {
      for (const w of workers) await w.close();
      await unsigned.close();
      await queue.close();
      connection.disconnect();
    }
  });
});

if (binary === undefined) describe("signed jobs on redis-server", () => it.skip(NO_REDIS_SERVER, () => {}));

/**
 * A job whose handler holds its worker's thread for several lock durations keeps its lock (the
 * lock keeper renews it from a thread of its own): the stalled-job check of another worker, running
 * all the while, does not take the job away, and the job completes once, by the worker that held it.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Dispatcher, handlerFor, startWorker } from "../src/index.js";
import { NO_REDIS_SERVER, redisServerForTests } from "../src/testing.js";
import { privateRedis } from "./support/private-redis.js";
import { type WorkerProcess, spawnWorker } from "./support/processes.js";
import { BLOCKING } from "./support/test-kinds.js";
import { until } from "./support/until.js";

const binary = redisServerForTests();
const BLOCKING_WORKER = fileURLToPath(new URL("./support/blocking-worker.ts", import.meta.url));
const settings = { lockDurationMs: 400, stalledIntervalMs: 200, maxStalledCount: 1, attempts: 1 };

describe.skipIf(binary === undefined)(`a step longer than the lock${binary === undefined ? ` (${NO_REDIS_SERVER})` : ""}`, () => {
  const redis = privateRedis(binary);
  const prefix = `lk${randomUUID().slice(0, 8)}`;
  const env = {
    TESSERA_QUEUE_PREFIX: prefix,
    TESSERA_QUEUE_LOCK_MS: String(settings.lockDurationMs),
    TESSERA_QUEUE_STALLED_MS: String(settings.stalledIntervalMs),
    TESSERA_QUEUE_MAX_STALLED: String(settings.maxStalledCount),
    TESSERA_QUEUE_ATTEMPTS: String(settings.attempts),
  };
  let blocker: WorkerProcess | undefined;
  afterAll(async () => {
    blocker?.child.kill("SIGKILL");
  });

  it("keeps the job with the worker whose thread is busy for 8 lock durations", async () => {
    blocker = await spawnWorker(BLOCKING_WORKER, [redis().url], env);
    const dispatcher = await Dispatcher.open(redis().url, { ...settings, prefix });
    const result = dispatcher.dispatch(BLOCKING, { ms: 8 * settings.lockDurationMs }, { key: "long-step" });
    const taken = blocker;
    await until("the blocking worker to start the job", () => (/long-step: started/.test(taken.output()) ? true : undefined));
    // A second worker, free all along: its stalled-job check runs every 200 ms while the job runs.
    let takenOver = 0;
    const watcher = await startWorker({
      redisUrl: redis().url,
      settings: { ...settings, prefix },
      log: () => undefined,
      handlers: [
        handlerFor(BLOCKING, async () => {
          takenOver++;
          return { pid: process.pid };
        }),
      ],
    });
    try {
      await expect(result).resolves.toEqual({ pid: taken.pid });
      expect(takenOver).toBe(0);
      expect(taken.output()).toMatch(/long-step: done in/);
    } finally {
      await watcher.close();
      await dispatcher.close();
    }
  }, 30_000);
});

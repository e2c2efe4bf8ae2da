/**
 * The stalled → dead-letter path (a job whose workers keep disappearing fails after
 * maxStalledCount recoveries and is dead-lettered by the worker that notices), and retrying its
 * dead letter: the job goes back to the queue with fresh attempts and completes on a healthy
 * worker (`tessera queue dead-letters --all` is apps/cli/test/queue-command.test.ts's).
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Dispatcher, JobFailedError, QueueConfigError, type RunningWorker, handlerFor, startWorker } from "../src/index.js";
import { NO_REDIS_SERVER, redisServerForTests } from "../src/testing.js";
import { privateRedis } from "./support/private-redis.js";
import { SQUARE } from "./support/test-kinds.js";
import { until } from "./support/until.js";

const binary = redisServerForTests();

describe.skipIf(binary === undefined)("dead letters", () => {
  const server = privateRedis(binary);

  it("a job whose workers vanish more than maxStalledCount times is dead-lettered as stalled; a retry completes it", async () => {
    const settings = { prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 1500, stalledIntervalMs: 300, maxStalledCount: 1, attempts: 3, backoffMs: 50 };
    let release: () => void = () => undefined;
    const never = new Promise<void>((resolve) => (release = resolve));
    const taken: string[] = [];
    // A worker that takes the job and then vanishes (force-closed: its lock is no longer renewed).
    const vanishing = async (name: string): Promise<RunningWorker> =>
      startWorker({
        redisUrl: server().url,
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
    const dispatcher = await Dispatcher.open(server().url, settings);
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
      // Closed before the retry, and awaited: a closing w3 could still take the retried job and
      // then vanish with it, failing it as stalled a second time (a flake seen on a loaded machine).
      await watchers.pop()?.close(true);

      // Retried: back in the queue, a healthy worker completes it, and the letter is gone.
      watchers.push(
        await startWorker({
          redisUrl: server().url,
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
});

if (binary === undefined) describe("dead letters", () => it.skip(NO_REDIS_SERVER, () => {}));

/**
 * The queue end to end: a private redis-server, three worker processes, and a dispatcher in this
 * process. A worker killed in the middle of a job loses nothing (the job completes on another
 * worker, once); a job that keeps failing, a malformed payload and an unknown kind end in the
 * dead-letter queue with their reasons, and the workers go on.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dispatcher, JobFailedError, QueueConfigError, startWorker } from "../src/index.js";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "../src/testing.js";
import { spawnWorker, type WorkerProcess } from "./support/processes.js";
import { BROKEN, SQUARE } from "./support/test-kinds.js";
import { until } from "./support/until.js";

const binary = redisServerForTests();
const WORKER = fileURLToPath(new URL("./support/square-worker.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "tessera-queue-test-"));
const journal = join(scratch, "journal.txt");
const holdFile = join(scratch, "held-by.txt");
const prefix = `t${randomUUID().slice(0, 8)}`;
// Short locks so that a killed worker's job moves on within about four seconds (with a margin over a busy CI machine).
const settings = { prefix, lockDurationMs: 3000, stalledIntervalMs: 500, backoffMs: 50, attempts: 3 };
const workerEnv = {
  TEST_JOURNAL: journal,
  TESSERA_QUEUE_PREFIX: prefix,
  TESSERA_QUEUE_LOCK_MS: "3000",
  TESSERA_QUEUE_STALLED_MS: "500",
  TESSERA_QUEUE_BACKOFF_MS: "50",
  TESSERA_QUEUE_ATTEMPTS: "3",
  TESSERA_QUEUE_TEST_HOLD: "square.held-job:60000",
  TESSERA_QUEUE_TEST_HOLD_FILE: holdFile,
};

function journalLines(): string[][] {
  return existsSync(journal)
    ? readFileSync(journal, "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" "))
    : [];
}

describe.skipIf(binary === undefined)("the job queue on redis-server", () => {
  let redis: RedisServer;
  let dispatcher: Dispatcher;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedisServer(binary);
    dispatcher = await Dispatcher.open(redis.url, settings);
    workers.push(...(await Promise.all([0, 1, 2].map(() => spawnWorker(WORKER, [redis.url], workerEnv)))));
  });

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
    await dispatcher?.close();
    await redis?.stop();
  });

  it("a worker killed in the middle of a job: the job completes on another worker, nothing is lost or done twice", async () => {
    const ids = ["a", "b", "c", "held-job", "d", "e", "f"];
    const results = Promise.all(ids.map((id, n) => dispatcher.dispatch(SQUARE, { id, n }, { key: id })));
    const holder = Number(await until("a worker to hold the job", () => (existsSync(holdFile) ? readFileSync(holdFile, "utf8") : undefined)));
    const victim = workers.find((w) => w.pid === holder);
    expect(victim).toBeDefined();
    victim?.child.kill("SIGKILL");
    expect(await victim?.exited).toBe("SIGKILL");

    const done = await results;
    expect(done.map((r) => r.square)).toEqual(ids.map((_, n) => n * n));
    expect(done[ids.indexOf("held-job")]?.pid).not.toBe(holder);
    const finished = journalLines().filter((l) => l[0] === "done");
    for (const id of ids)
      expect(
        finished.filter((l) => l[1] === id),
        `"done" lines of ${id}`,
      ).toHaveLength(1);
    // The killed worker never got as far as handling the held job.
    expect(
      journalLines()
        .filter((l) => l[1] === "held-job")
        .every((l) => Number(l[2]) !== holder),
    ).toBe(true);
  });

  it("a job that keeps failing is retried, then dead-lettered with its reason", async () => {
    await expect(dispatcher.dispatch(BROKEN, { id: "always" }, { key: "always" })).rejects.toThrow(JobFailedError);
    await expect(dispatcher.dispatch(BROKEN, { id: "always" }, { key: "always" })).rejects.toThrow(/job always is broken on purpose/);
    expect(journalLines().filter((l) => l[0] === "start" && l[1] === "always")).toHaveLength(3);
    const letter = (await dispatcher.deadLetters()).find((d) => d.jobId === "broken.always");
    expect(letter).toMatchObject({ kind: "broken", attemptsMade: 3, reason: "job always is broken on purpose", payload: { id: "always" } });
  });

  it("a malformed payload and an unknown kind go to the dead-letter queue at once; the workers go on", async () => {
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const raw = new Queue("jobs", { connection, prefix });
    try {
      // Added around the dispatcher, which would refuse them.
      await raw.add("square", { id: 7 }, { jobId: "square.malformed", attempts: 3 });
      await raw.add("transmogrify", { id: "x" }, { jobId: "transmogrify.x", attempts: 3 });
    } finally {
      await raw.close();
      connection.disconnect();
    }
    const letters = await until("two dead letters", async () => {
      const all = await dispatcher.deadLetters();
      const found = all.filter((d) => d.jobId === "square.malformed" || d.jobId === "transmogrify.x");
      return found.length === 2 ? found : undefined;
    });
    expect(letters.find((d) => d.jobId === "square.malformed")).toMatchObject({
      attemptsMade: 1,
      reason: expect.stringMatching(/^malformed square payload: id: .*expected string/),
    });
    expect(letters.find((d) => d.jobId === "transmogrify.x")).toMatchObject({
      attemptsMade: 1,
      reason: 'unknown job kind "transmogrify" (this worker handles: square, broken)',
    });
    await expect(dispatcher.dispatch(SQUARE, { id: "after", n: 9 }, { key: "after" })).resolves.toMatchObject({ square: 81 });
  });

  it("a dispatcher refuses a malformed payload before it reaches the queue", async () => {
    await expect(dispatcher.dispatch(SQUARE, { id: "x", n: "nine" } as never)).rejects.toThrow(/the square payload is malformed: n: .*expected number/);
  });

  it("SIGTERM: a worker finishes and exits with code 0", async () => {
    const alive = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    expect(alive.length).toBeGreaterThan(0);
    for (const w of alive) w.child.kill("SIGTERM");
    expect(await Promise.all(alive.map((w) => w.exited))).toEqual(alive.map(() => 0));
  });
});

describe("bad Redis addresses", () => {
  it("names a malformed URL, a wrong scheme and an unreachable server", async () => {
    await expect(Dispatcher.open("localhost:6379")).rejects.toThrow(QueueConfigError);
    await expect(Dispatcher.open("not a url")).rejects.toThrow('--redis: "not a url" is not a URL; expected redis://HOST:PORT[/DB]');
    await expect(Dispatcher.open("http://127.0.0.1:6379")).rejects.toThrow('has scheme "http"; expected redis:// or rediss://');
    await expect(startWorker({ redisUrl: "redis://127.0.0.1:1", handlers: [] })).rejects.toThrow(
      /^cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(127\.0\.0\.1:1\): /,
    );
  });
});

if (binary === undefined) describe("the job queue on redis-server", () => it.skip(NO_REDIS_SERVER, () => {}));

/**
 * Redis credentials (in the URL, from the environment, from a file) and the workers' refusal of a
 * Redis that answers anyone off loopback (issue 33: the queue had no authentication).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dispatcher, QueueConfigError, handlerFor, isLoopbackHost, parseRedisUrl, redactUrl, startWorker } from "../src/index.js";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "../src/testing.js";
import { SQUARE } from "./support/test-kinds.js";

const scratch = mkdtempSync(join(tmpdir(), "tessera-queue-auth-"));

describe("credentials", () => {
  it("come from the URL first, then TESSERA_REDIS_PASSWORD / _USERNAME, then the password file", () => {
    expect(parseRedisUrl("redis://grader:s%40cret@10.0.0.5:6380/2", {})).toMatchObject({
      username: "grader",
      password: "s@cret",
      host: "10.0.0.5",
      port: 6380,
      db: 2,
    });
    expect(parseRedisUrl("redis://10.0.0.5", { TESSERA_REDIS_PASSWORD: "p", TESSERA_REDIS_USERNAME: "u" })).toMatchObject({ username: "u", password: "p" });
    const file = join(scratch, "password");
    writeFileSync(file, "from-file\n");
    expect(parseRedisUrl("redis://10.0.0.5", { TESSERA_REDIS_PASSWORD_FILE: file }).password).toBe("from-file");
    expect(parseRedisUrl("redis://:url@10.0.0.5", { TESSERA_REDIS_PASSWORD: "env" }).password).toBe("url");
    expect(parseRedisUrl("redis://10.0.0.5", {}).password).toBeUndefined();
  });

  it("a missing or empty password file is a clear error naming it", () => {
    expect(() => parseRedisUrl("redis://h", { TESSERA_REDIS_PASSWORD_FILE: join(scratch, "nope") })).toThrow(/password file .*nope cannot be read/);
    const empty = join(scratch, "empty");
    writeFileSync(empty, "");
    expect(() => parseRedisUrl("redis://h", { TESSERA_REDIS_PASSWORD_FILE: empty })).toThrow(/is empty/);
  });

  it("rediss:// means TLS; the password never shows in messages", () => {
    expect(parseRedisUrl("rediss://:pw@example.org:6390", {})).toMatchObject({ tls: true, display: "rediss://:***@example.org:6390" });
    expect(redactUrl("redis://user:hunter2@host/0")).toBe("redis://user:***@host/0");
    expect(() => parseRedisUrl("redis://:hunter2@host/x", {})).toThrow(QueueConfigError);
    try {
      parseRedisUrl("redis://:hunter2@host/x", {});
    } catch (err) {
      expect((err as Error).message).not.toContain("hunter2");
    }
  });

  it("loopback hosts", () => {
    for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "::1"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["10.0.0.1", "0.0.0.0", "redis.example.org", "128.0.0.1", "::"]) expect(isLoopbackHost(h), h).toBe(false);
  });
});

const binary = redisServerForTests();
const settings = { prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 3000, stalledIntervalMs: 500, backoffMs: 50, attempts: 1 };
const squareHandler = handlerFor(SQUARE, async ({ id, n }) => ({ id, square: n * n, pid: process.pid }));
const offLoopback = () => false;

describe.skipIf(binary === undefined)("a Redis with a password", () => {
  let open: RedisServer;
  let locked: RedisServer;
  const password = `pw-${randomUUID()}`;
  beforeAll(async () => {
    [open, locked] = await Promise.all([startRedisServer(binary), startRedisServer(binary, { password })]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([open?.stop(), locked?.stop()]);
  });

  it("jobs run with the password in the URL; without it, dispatcher and worker refuse with a clear message", async () => {
    const worker = await startWorker({ redisUrl: locked.url, handlers: [squareHandler], settings, log: () => undefined, isLoopback: offLoopback });
    const dispatcher = await Dispatcher.open(locked.url, settings);
    try {
      expect(await dispatcher.dispatch(SQUARE, { id: "x", n: 7 })).toMatchObject({ square: 49 });
    } finally {
      await dispatcher.close();
      await worker.close();
    }
    const bare = `redis://127.0.0.1:${locked.port}`;
    const refusal = Dispatcher.open(bare, settings);
    await expect(refusal).rejects.toThrow(QueueConfigError);
    await expect(refusal).rejects.toThrow(/credentials/);
    await expect(startWorker({ redisUrl: bare, handlers: [squareHandler], settings, log: () => undefined })).rejects.toThrow(/credentials/);
  });

  it("the password may come from a file named by TESSERA_REDIS_PASSWORD_FILE (what --redis-password-file sets)", async () => {
    const file = join(scratch, "redis-password");
    writeFileSync(file, `${password}\n`);
    const before = process.env.TESSERA_REDIS_PASSWORD_FILE;
    process.env.TESSERA_REDIS_PASSWORD_FILE = file;
    try {
      const worker = await startWorker({ redisUrl: `redis://127.0.0.1:${locked.port}`, handlers: [squareHandler], settings, log: () => undefined });
      await worker.close();
    } finally {
      if (before === undefined) delete process.env.TESSERA_REDIS_PASSWORD_FILE;
      else process.env.TESSERA_REDIS_PASSWORD_FILE = before;
    }
  });

  it("a worker refuses a Redis off loopback that answers without a password, unless insecure", async () => {
    const start = (insecure: boolean) =>
      startWorker({ redisUrl: open.url, handlers: [squareHandler], settings, log: () => undefined, isLoopback: offLoopback, insecure });
    await expect(start(false)).rejects.toThrow(/answers without a password .* --insecure/);
    const worker = await start(true);
    await worker.close();
    // On loopback (the real classification) it starts.
    const local = await startWorker({ redisUrl: open.url, handlers: [squareHandler], settings, log: () => undefined });
    await local.close();
  });
});

if (binary === undefined) describe("a Redis with a password", () => it.skip(NO_REDIS_SERVER, () => {}));

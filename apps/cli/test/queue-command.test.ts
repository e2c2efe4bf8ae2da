/**
 * `tessera queue dead-letters`: lists the dead letters of a private redis-server's queue, retries
 * one (--retry ID) and all (--all), and refuses what it cannot do with a message and exit code.
 */
import { randomUUID } from "node:crypto";
import { Dispatcher, defineJobKind, handlerFor, startWorker } from "@tessera/queue";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "@tessera/queue/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const binary = redisServerForTests();
const ECHO = defineJobKind("echo", z.object({ text: z.string() }), z.object({ text: z.string() }));

describe.skipIf(binary === undefined)("tessera queue dead-letters", () => {
  let redis: RedisServer;
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const saved = process.env.TESSERA_QUEUE_PREFIX;
  beforeAll(async () => {
    redis = await startRedisServer(binary);
    process.env.TESSERA_QUEUE_PREFIX = prefix;
  }, 30_000);
  afterAll(async () => {
    if (saved === undefined) delete process.env.TESSERA_QUEUE_PREFIX;
    else process.env.TESSERA_QUEUE_PREFIX = saved;
    await redis?.stop();
  });

  async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const io = captureIO();
    const code = await runCli(["queue", ...args], io);
    return { code, out: io.out, err: io.err };
  }

  it("lists, retries one, retries all", async () => {
    const settings = { attempts: 1, backoffMs: 50 };
    let healthy = false;
    const worker = await startWorker({
      redisUrl: redis.url,
      settings,
      log: () => undefined,
      handlers: [
        handlerFor(ECHO, async ({ text }) => {
          if (!healthy) throw new Error(`cannot echo ${text} yet`);
          return { text };
        }),
      ],
    });
    const dispatcher = await Dispatcher.open(redis.url, settings);
    try {
      expect(await cli("dead-letters", "--redis", redis.url)).toEqual({ code: 0, out: "no dead letters\n", err: "" });
      for (const text of ["one", "two", "three"]) await expect(dispatcher.dispatch(ECHO, { text }, { key: text })).rejects.toThrow(/yet/);
      const listed = await cli("dead-letters", "--redis", redis.url);
      expect(listed.code).toBe(0);
      for (const text of ["one", "two", "three"])
        expect(listed.out).toMatch(new RegExp(`^echo\\.${text}\\techo\\t1 attempt\\t.*cannot echo ${text} yet$`, "m"));

      healthy = true;
      expect(await cli("dead-letters", "--redis", redis.url, "--retry", "echo.two")).toMatchObject({ code: 0, out: "retried echo.two: back in the queue\n" });
      expect(await dispatcher.dispatch(ECHO, { text: "two" }, { key: "two" })).toEqual({ text: "two" });
      expect((await cli("dead-letters", "--redis", redis.url)).out).not.toContain("echo.two");

      expect(await cli("dead-letters", "--redis", redis.url, "--all")).toMatchObject({ code: 0, out: expect.stringMatching(/^retried 2: /) });
      expect(await dispatcher.dispatch(ECHO, { text: "one" }, { key: "one" })).toEqual({ text: "one" });
      expect((await cli("dead-letters", "--redis", redis.url)).out).toBe("no dead letters\n");
    } finally {
      await dispatcher.close();
      await worker.close();
    }
  }, 60_000);

  it("refuses an unknown id (1), contradictory options and a missing --redis (2)", async () => {
    expect(await cli("dead-letters", "--redis", redis.url, "--retry", "echo.nope")).toMatchObject({
      code: 1,
      err: expect.stringMatching(/no dead letter has job id "echo\.nope"/),
    });
    expect((await cli("dead-letters", "--redis", redis.url, "--retry", "x", "--all")).code).toBe(2);
    expect((await cli("dead-letters")).code).toBe(2);
    expect((await cli("dead-letters", "--redis", "redis://127.0.0.1:1")).code).toBe(1);
  }, 30_000);
});

if (binary === undefined) describe("tessera queue dead-letters", () => it.skip(NO_REDIS_SERVER, () => {}));

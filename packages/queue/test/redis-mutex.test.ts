/** Two processes' mutexes on one key (here two connections): their critical sections never overlap. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "../src/testing.js";
import { RedisMutex } from "../src/index.js";

const binary = redisServerForTests();

describe.skipIf(binary === undefined)("RedisMutex", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(binary);
  });
  afterAll(async () => redis?.stop());

  it("lets one holder at a time in, across connections, and everyone in eventually", async () => {
    const a = await RedisMutex.open(redis.url, "gpu-lock:test");
    const b = await RedisMutex.open(redis.url, "gpu-lock:test");
    const events: string[] = [];
    let inside = 0;
    let overlaps = 0;
    const section = (who: string) => async () => {
      inside++;
      if (inside > 1) overlaps++;
      events.push(`${who}+`);
      await new Promise((r) => setTimeout(r, 5));
      events.push(`${who}-`);
      inside--;
      return who;
    };
    try {
      const runs = ["a1", "b1", "a2", "b2", "a3", "b3"].map((who) => (who.startsWith("a") ? a : b).run(section(who)));
      expect(await Promise.all(runs)).toEqual(["a1", "b1", "a2", "b2", "a3", "b3"]);
      expect(overlaps).toBe(0);
      // Each entry is followed by its own exit.
      for (let i = 0; i < events.length; i += 2) expect(events[i + 1]).toBe(events[i]!.replace("+", "-"));
      // A section that throws releases the lock too.
      await expect(a.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
      await expect(b.run(async () => "after")).resolves.toBe("after");
    } finally {
      a.close();
      b.close();
    }
  });
});

if (binary === undefined) describe("RedisMutex", () => it.skip(NO_REDIS_SERVER, () => {}));

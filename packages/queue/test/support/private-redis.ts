/** A private redis-server for one describe block: started before its tests, stopped after. */
import { afterAll, beforeAll } from "vitest";
import { type RedisServer, type RedisServerOptions, startRedisServer } from "../../src/testing.js";

export function privateRedis(binary: string | undefined, opts: RedisServerOptions = {}): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedisServer(binary, opts);
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error("the private redis-server is not running (used outside its describe block?)");
    return server;
  };
}

/**
 * Test and benchmark support, published as `@tessera/queue/testing` and kept out of the main
 * entry: a private redis-server on loopback, and the rule for when the queue's tests skip.
 */
export { startRedisServer, findRedisServer, redisServerForTests, NO_REDIS_SERVER, type RedisServer, type RedisServerOptions } from "./redis-server.js";

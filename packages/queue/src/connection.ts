/**
 * Redis connections for BullMQ. Every connection of a dispatcher or worker is opened here, after
 * one PING with a short limit: an unreachable server is reported once, with its address, instead
 * of ioredis retrying quietly forever.
 */
import { Redis } from "ioredis";
import { QueueConfigError } from "./errors.js";
import type { RedisAddress } from "./redis-url.js";

/** A connection BullMQ may block on (its workers need `maxRetriesPerRequest: null`). */
export function openRedis(address: RedisAddress): Redis {
  return new Redis(address.url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

/** Throws a QueueConfigError naming the address when Redis does not answer a PING within `timeoutMs`. */
export async function checkReachable(address: RedisAddress, timeoutMs = 3000): Promise<void> {
  const probe = new Redis(address.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The socket's own error (ECONNREFUSED, ENOTFOUND) comes as an event; the awaited call only says "Connection is closed".
  let socketError: string | undefined;
  probe.on("error", (err: Error) => (socketError ??= err.message));
  let timer: NodeJS.Timeout | undefined;
  try {
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    await Promise.race([probe.connect().then(() => probe.ping()), limit]);
  } catch (err) {
    throw new QueueConfigError(
      `cannot reach Redis at ${address.url} (${address.host}:${address.port}): ${socketError ?? (err instanceof Error ? err.message : String(err))}`,
    );
  } finally {
    clearTimeout(timer);
    probe.disconnect();
  }
}

/**
 * Redis connections for BullMQ. Every connection of a dispatcher or worker is opened here, after
 * one PING with a short limit: an unreachable server (or refused credentials) is reported once,
 * with its address, instead of ioredis retrying quietly forever.
 */
import { Redis, type RedisOptions } from "ioredis";
import { QueueConfigError } from "./errors.js";
import type { RedisAddress } from "./redis-url.js";

/** The address's credentials as ioredis options (the URL's own, or those from the environment). */
function credentials(address: RedisAddress): RedisOptions {
  return {
    ...(address.username === undefined ? {} : { username: address.username }),
    ...(address.password === undefined ? {} : { password: address.password }),
  };
}

/** A connection BullMQ may block on (its workers need `maxRetriesPerRequest: null`). */
export function openRedis(address: RedisAddress): Redis {
  return new Redis(address.url, { ...credentials(address), maxRetriesPerRequest: null, enableReadyCheck: true });
}

/**
 * Answers whether `address` answers a PING; throws a QueueConfigError naming the address when
 * nobody answers within `timeoutMs`. With `anonymous`, connects without any credentials.
 */
async function ping(address: RedisAddress, timeoutMs: number, anonymous: boolean): Promise<void> {
  const probe = new Redis(anonymous ? withoutUserInfo(address.url) : address.url, {
    ...(anonymous ? {} : credentials(address)),
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
      `cannot reach Redis at ${address.display} (${address.host}:${address.port}): ${explainAuthError(socketError ?? (err instanceof Error ? err.message : String(err)))}`,
    );
  } finally {
    clearTimeout(timer);
    probe.disconnect();
  }
}

function withoutUserInfo(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

function explainAuthError(message: string): string {
  if (/NOAUTH|NOPERM|WRONGPASS|invalid password|invalid username-password/i.test(message))
    return `${message} (the server wants credentials: a password in the URL, TESSERA_REDIS_PASSWORD, or --redis-password-file)`;
  return message;
}

/** Throws a QueueConfigError naming the address when Redis does not answer a PING within `timeoutMs`. */
export async function checkReachable(address: RedisAddress, timeoutMs = 3000): Promise<void> {
  await ping(address, timeoutMs, false);
}

/** True when the server at `address` answers commands from a client without credentials. */
export async function answersWithoutCredentials(address: RedisAddress, timeoutMs = 3000): Promise<boolean> {
  try {
    await ping(address, timeoutMs, true);
    return true;
  } catch (err) {
    if (err instanceof QueueConfigError && /NOAUTH|NOPERM|WRONGPASS|credentials/i.test(err.message)) return false;
    throw err;
  }
}

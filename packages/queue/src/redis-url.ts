/**
 * The Redis URL a dispatcher or worker connects to, checked before any connection is tried, so
 * that a typo is named as such rather than surfacing as a retrying socket error.
 */
import { QueueConfigError } from "./errors.js";

export interface RedisAddress {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly tls: boolean;
}

export function parseRedisUrl(text: string): RedisAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new QueueConfigError(`--redis: "${text}" is not a URL; expected redis://HOST:PORT[/DB] (e.g. redis://127.0.0.1:6379)`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new QueueConfigError(`--redis: "${text}" has scheme "${url.protocol.slice(0, -1)}"; expected redis:// or rediss://`);
  }
  if (url.hostname === "") throw new QueueConfigError(`--redis: "${text}" names no host; expected redis://HOST:PORT`);
  const port = url.port === "" ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  const db = dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new QueueConfigError(`--redis: "${text}" has database "${dbText}"; expected a number (redis://HOST:PORT/0)`);
  return { url: text, host: url.hostname.replace(/^\[|\]$/g, ""), port, db, tls: url.protocol === "rediss:" };
}

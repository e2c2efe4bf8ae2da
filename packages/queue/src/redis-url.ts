/**
 * The Redis URL a dispatcher or worker connects to, checked before any connection is tried, so
 * that a typo is named as such rather than surfacing as a retrying socket error; and the
 * credentials to connect with: in the URL (redis://USER:PASSWORD@HOST), else from the
 * environment (TESSERA_REDIS_USERNAME, TESSERA_REDIS_PASSWORD, or TESSERA_REDIS_PASSWORD_FILE:
 * a file holding the password, what `--redis-password-file` sets). `rediss://` connects with TLS.
 */
import { readFileSync } from "node:fs";
import { QueueConfigError } from "./errors.js";

export interface RedisAddress {
  readonly url: string;
  /** The URL with its password hidden: what messages and logs show. */
  readonly display: string;
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly tls: boolean;
  /** An ACL user (Redis 6+); the default user when absent. */
  readonly username?: string;
  readonly password?: string;
}

export const PASSWORD_ENV = "TESSERA_REDIS_PASSWORD";
export const PASSWORD_FILE_ENV = "TESSERA_REDIS_PASSWORD_FILE";
export const USERNAME_ENV = "TESSERA_REDIS_USERNAME";

export function parseRedisUrl(text: string, env: NodeJS.ProcessEnv = process.env): RedisAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new QueueConfigError(`--redis: "${redactUrl(text)}" is not a URL; expected redis://HOST:PORT[/DB] (e.g. redis://127.0.0.1:6379)`);
  }
  const display = redactUrl(text);
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new QueueConfigError(`--redis: "${display}" has scheme "${url.protocol.slice(0, -1)}"; expected redis:// or rediss://`);
  }
  if (url.hostname === "") throw new QueueConfigError(`--redis: "${display}" names no host; expected redis://HOST:PORT`);
  const port = url.port === "" ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  const db = dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new QueueConfigError(`--redis: "${display}" has database "${dbText}"; expected a number (redis://HOST:PORT/0)`);
  const username = nonEmpty(decodeURIComponent(url.username)) ?? nonEmpty(env[USERNAME_ENV]);
  const password = nonEmpty(decodeURIComponent(url.password)) ?? passwordFromEnv(env);
  return {
    url: text,
    display,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port,
    db,
    tls: url.protocol === "rediss:",
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
  };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === "" ? undefined : text;
}

function passwordFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const direct = nonEmpty(env[PASSWORD_ENV]);
  if (direct !== undefined) return direct;
  const file = nonEmpty(env[PASSWORD_FILE_ENV]);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new QueueConfigError(`the Redis password file ${file} cannot be read: ${(err as Error).message}`);
  }
  const password = text.replace(/\r?\n$/, "");
  if (password === "") throw new QueueConfigError(`the Redis password file ${file} is empty`);
  return password;
}

/** `text` with the password of its user-info replaced by "***" (text that is no URL is returned as is). */
export function redactUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

/** True for hosts only this machine reaches: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::1" || h === "0:0:0:0:0:0:0:1";
}

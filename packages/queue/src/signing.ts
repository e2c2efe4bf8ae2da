/**
 * Signed jobs: with a key shared by dispatchers and workers (TESSERA_QUEUE_KEY, or a file named by
 * TESSERA_QUEUE_KEY_FILE), every payload and every result travels in an envelope with an
 * HMAC-SHA256 over its kind, job id, direction and JSON text. A worker refuses a payload that is
 * unsigned or forged (it was not put there by a dispatcher holding the key); a dispatcher refuses
 * such a result (a rogue worker on the same Redis cannot complete jobs). Binding the job id and
 * direction stops a signed payload or result from being replayed under another job. Without a
 * key nothing is signed, and a signed envelope is refused with a message saying a key is needed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { QueueConfigError } from "./errors.js";

export const KEY_ENV = "TESSERA_QUEUE_KEY";
export const KEY_FILE_ENV = "TESSERA_QUEUE_KEY_FILE";

export type Direction = "payload" | "result";

export interface SignedEnvelope {
  readonly signed: unknown;
  readonly hmac: string;
}

/** The shared key from the environment, or undefined when none is set. */
export function queueKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const direct = env[KEY_ENV];
  if (direct !== undefined && direct !== "") return checkedKey(direct, KEY_ENV);
  const file = env[KEY_FILE_ENV];
  if (file === undefined || file === "") return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new QueueConfigError(`the queue's key file ${file} (${KEY_FILE_ENV}) cannot be read: ${(err as Error).message}`);
  }
  return checkedKey(text.replace(/\r?\n$/, ""), file);
}

function checkedKey(key: string, source: string): string {
  if (key.length < 16) throw new QueueConfigError(`the queue's key from ${source} has ${key.length} characters; use at least 16 (e.g. openssl rand -hex 32)`);
  return key;
}

function isEnvelope(value: unknown): value is SignedEnvelope {
  return typeof value === "object" && value !== null && "hmac" in value && "signed" in value && typeof (value as { hmac: unknown }).hmac === "string";
}

function mac(key: string, direction: Direction, kind: string, jobId: string, text: string): string {
  return createHmac("sha256", key).update(`tessera-queue/1\n${direction}\n${kind}\n${jobId}\n${text}`).digest("hex");
}

export function seal(key: string, direction: Direction, kind: string, jobId: string, value: unknown): SignedEnvelope {
  return { signed: value, hmac: mac(key, direction, kind, jobId, JSON.stringify(value)) };
}

export type Opened = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** The value inside `data` when its signature verifies (or, without a key, when it is unsigned). */
export function unseal(key: string | undefined, direction: Direction, kind: string, jobId: string, data: unknown): Opened {
  if (key === undefined) {
    if (isEnvelope(data))
      return { ok: false, reason: `is signed, but this process has no key to check it (set ${KEY_ENV} or ${KEY_FILE_ENV} as on the other side)` };
    return { ok: true, value: data };
  }
  if (!isEnvelope(data)) return { ok: false, reason: `is not signed (the other side has no ${KEY_ENV}?): refused` };
  const expected = Buffer.from(mac(key, direction, kind, jobId, JSON.stringify(data.signed)), "hex");
  const given = Buffer.from(data.hmac, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "has a signature that does not verify (forged, changed, or signed with another key): refused" };
  return { ok: true, value: data.signed };
}

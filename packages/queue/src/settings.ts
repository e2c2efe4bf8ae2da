/**
 * How jobs are retried and how a lost worker is noticed. BullMQ's lock on an active job is the
 * heartbeat: a worker renews it every lockDuration/2; a job whose lock lapsed (its worker was
 * killed, its machine went away) is found by the stalled-job check of any live worker, every
 * stalledInterval, and put back in the queue for another worker. Tests shorten both so that a
 * killed worker's job moves on within seconds; the defaults suit jobs that take minutes.
 */
import { z } from "zod";
import { QueueConfigError } from "./errors.js";

export interface QueueSettings {
  /** Namespace of every Redis key (BullMQ's prefix); workers and dispatchers must agree. */
  readonly prefix: string;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  /** Times a job may be recovered from a lost worker before it fails (BullMQ's maxStalledCount). */
  readonly maxStalledCount: number;
  /** Attempts of a job whose handler throws, the first included. */
  readonly attempts: number;
  /** First retry delay; doubled on each further retry. */
  readonly backoffMs: number;
}

export const DEFAULT_QUEUE_SETTINGS: QueueSettings = {
  prefix: "tessera",
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  maxStalledCount: 2,
  attempts: 3,
  backoffMs: 2_000,
};

/** Environment variables that override a setting (tests and benchmarks set them for the worker processes they start). */
const ENV_NAMES: Record<Exclude<keyof QueueSettings, "prefix">, string> = {
  lockDurationMs: "TESSERA_QUEUE_LOCK_MS",
  stalledIntervalMs: "TESSERA_QUEUE_STALLED_MS",
  maxStalledCount: "TESSERA_QUEUE_MAX_STALLED",
  attempts: "TESSERA_QUEUE_ATTEMPTS",
  backoffMs: "TESSERA_QUEUE_BACKOFF_MS",
};

/** Node's largest timer (a longer one fires at once): every duration here is a timer's. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const positiveInt = z.coerce.number().int().positive().max(MAX_TIMER_MS);

/** The defaults, overridden by TESSERA_QUEUE_* variables of `env` and then by `overrides`. */
export function queueSettings(overrides: Partial<QueueSettings> = {}, env: NodeJS.ProcessEnv = process.env): QueueSettings {
  const fromEnv: Partial<Record<keyof QueueSettings, unknown>> = {};
  for (const [key, name] of Object.entries(ENV_NAMES) as [keyof typeof ENV_NAMES, string][]) {
    const text = env[name];
    if (text === undefined || text === "") continue;
    const parsed = positiveInt.safeParse(text);
    if (!parsed.success) throw new QueueConfigError(`${name}="${text}" must be a positive integer of at most ${MAX_TIMER_MS}`);
    fromEnv[key] = parsed.data;
  }
  if (env.TESSERA_QUEUE_PREFIX !== undefined && env.TESSERA_QUEUE_PREFIX !== "") fromEnv.prefix = env.TESSERA_QUEUE_PREFIX;
  return { ...DEFAULT_QUEUE_SETTINGS, ...fromEnv, ...overrides } as QueueSettings;
}

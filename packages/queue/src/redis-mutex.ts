/**
 * A lock shared by processes through Redis: what several worker processes on one GPU take around
 * each of the GPU's runs, so that their kernels and timings never overlap (within one process,
 * the autograder's serializedGpu does the same). The lock expires if its holder dies (TTL,
 * renewed while held); it is released only by its holder (a token, checked in a script).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { checkReachable, openRedis } from "./connection.js";
import { parseRedisUrl } from "./redis-url.js";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

export interface RedisMutexOptions {
  /** How long a dead holder keeps the lock (default 30 s; renewed every third of it while held). */
  readonly ttlMs?: number;
  /** Pause between tries while another process holds it (default 25 ms). */
  readonly pollMs?: number;
}

export class RedisMutex {
  readonly key: string;
  readonly #redis: Redis;
  readonly #ttlMs: number;
  readonly #pollMs: number;
  /** This process's callers queue here first, in order; one of them at a time asks Redis. */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(redis: Redis, key: string, opts: RedisMutexOptions = {}) {
    this.#redis = redis;
    this.key = key;
    this.#ttlMs = opts.ttlMs ?? 30_000;
    this.#pollMs = opts.pollMs ?? 25;
  }

  static async open(url: string, key: string, opts: RedisMutexOptions = {}): Promise<RedisMutex> {
    const address = parseRedisUrl(url);
    await checkReachable(address);
    return new RedisMutex(openRedis(address), key, opts);
  }

  /** Runs `work` while holding the lock. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#tail.then(() => this.#holding(work));
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  async #holding<T>(work: () => Promise<T>): Promise<T> {
    const token = randomUUID();
    while ((await this.#redis.set(this.key, token, "PX", this.#ttlMs, "NX")) !== "OK") await new Promise((r) => setTimeout(r, this.#pollMs));
    const renewal = setInterval(() => void this.#redis.eval(RENEW, 1, this.key, token, String(this.#ttlMs)).catch(() => undefined), this.#ttlMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.#redis.eval(RELEASE, 1, this.key, token).catch(() => undefined);
    }
  }

  close(): void {
    this.#redis.disconnect();
  }
}

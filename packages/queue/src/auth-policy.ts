/**
 * Workers hold submissions and run student code: they refuse a Redis that anyone on the network
 * can read and write (no password, not on loopback) unless told `--insecure`. A Redis on loopback
 * is reachable from this machine only, which is how tests and one-machine setups run.
 */
import { answersWithoutCredentials } from "./connection.js";
import { QueueConfigError } from "./errors.js";
import { type RedisAddress, isLoopbackHost } from "./redis-url.js";

export interface AuthPolicyOptions {
  readonly insecure?: boolean;
  /** Which hosts count as this machine's only (tests replace it). */
  readonly isLoopback?: (host: string) => boolean;
}

/** Throws a QueueConfigError when `address` is off loopback and answers without credentials, unless `insecure`. */
export async function refuseOpenRedis(address: RedisAddress, opts: AuthPolicyOptions = {}): Promise<void> {
  if (opts.insecure === true || (opts.isLoopback ?? isLoopbackHost)(address.host)) return;
  if (!(await answersWithoutCredentials(address))) return;
  throw new QueueConfigError(
    `Redis at ${address.display} answers without a password and is reachable from other hosts: any machine of that network (a student's code on a worker included) could read and change the queue. ` +
      "Set a password on the server (requirepass, or an ACL user) and give it to the workers (redis://USER:PASSWORD@HOST, TESSERA_REDIS_PASSWORD, or --redis-password-file FILE); or, on a network you trust, pass --insecure.",
  );
}

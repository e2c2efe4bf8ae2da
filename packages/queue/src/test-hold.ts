/**
 * A test-only hook that makes one job slow deterministically, so a test can kill the worker that
 * holds it: with TESSERA_QUEUE_TEST_HOLD="<job id substring>:<ms>", the first worker to take a
 * matching job (the first only: claimed with SET NX in Redis) waits that long before handling it,
 * after writing "<pid>" to TESSERA_QUEUE_TEST_HOLD_FILE so the test knows whom to kill.
 * Inert when the variable is unset.
 */
import { appendFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import type { Redis } from "ioredis";

export async function testHold(jobId: string, redis: Redis, prefix: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const spec = env.TESSERA_QUEUE_TEST_HOLD;
  if (spec === undefined || spec === "") return;
  const colon = spec.lastIndexOf(":");
  const match = spec.slice(0, colon);
  const ms = Number(spec.slice(colon + 1));
  if (colon <= 0 || !(ms > 0)) throw new RangeError(`TESSERA_QUEUE_TEST_HOLD="${spec}" must be "<job id part>:<milliseconds>"`);
  if (!jobId.includes(match)) return;
  const claimed = await redis.set(`${prefix}:test-hold:${jobId}`, String(process.pid), "EX", 3600, "NX");
  if (claimed !== "OK") return;
  const holdFile = env.TESSERA_QUEUE_TEST_HOLD_FILE;
  if (holdFile !== undefined) {
    // Renamed into place: a reader never sees the file empty.
    await writeFile(`${holdFile}.${process.pid}`, String(process.pid));
    await rename(`${holdFile}.${process.pid}`, holdFile);
  }
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Test-only: with TESSERA_QUEUE_TEST_JOURNAL set, the worker appends "start <job id> <pid>" before
 * a handler runs and "done <job id> <pid>" after it returned, so a test counts what was handled.
 */
export function journal(line: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.TESSERA_QUEUE_TEST_JOURNAL;
  if (file !== undefined && file !== "") appendFileSync(file, `${line}\n`);
}

/**
 * A worker started with an IPC channel (as startGpuWorkers starts them) stops by itself when the
 * channel closes, as it does when the process that started it dies (regression: a `tessera tune
 * --gpus` killed by a timeout left its workers running); SIGTERM stops it as before.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NO_REDIS_SERVER, redisServerForTests } from "../src/testing.js";
import { privateRedis } from "./support/private-redis.js";
import { bundleOf } from "./support/processes.js";
import { until } from "./support/until.js";

const binary = redisServerForTests();
const WORKER = fileURLToPath(new URL("./support/signalled-worker.ts", import.meta.url));

/** A worker from the script's prebuilt bundle (support/processes.ts: no tsx loader per start). */
function start(bundle: string, url: string): { child: ChildProcess; output: () => string; exited: Promise<number | string> } {
  const child = spawn(process.execPath, ["--conditions=@tessera/source", bundle, url], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
  return { child, output: () => output, exited };
}

describe.skipIf(binary === undefined)(`stopOnSignals${binary === undefined ? ` (${NO_REDIS_SERVER})` : ""}`, () => {
  const redis = privateRedis(binary);

  it("stops the worker when its parent's channel closes, and on SIGTERM", async () => {
    const bundle = await bundleOf(WORKER);
    const orphan = start(bundle, redis().url);
    const termed = start(bundle, redis().url);
    try {
      for (const w of [orphan, termed]) await until("the worker to be ready", () => (/^ready \d+$/m.test(w.output()) ? true : undefined), 60_000);
      orphan.child.disconnect();
      termed.child.kill("SIGTERM");
      expect(await orphan.exited).toBe(0);
      expect(await termed.exited).toBe(0);
      expect(orphan.output()).toMatch(/the process that started this worker is gone: finishing the jobs in hand, then exiting\nstopped\n$/);
      expect(termed.output()).toMatch(/SIGTERM: finishing the jobs in hand, then exiting \(again to exit now\)\nstopped\n$/);
    } finally {
      orphan.child.kill("SIGKILL");
      termed.child.kill("SIGKILL");
    }
  }, 90_000);
});

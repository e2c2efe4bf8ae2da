/**
 * A private redis-server for tests and benchmarks: on loopback, on a free port, in a temporary
 * folder, persisting nothing (`--save '' --appendonly no`); stopped by `stop()`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Redis } from "ioredis";

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/** TESSERA_REDIS_SERVER, else `redis-server` on the PATH; undefined when there is none. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.TESSERA_REDIS_SERVER;
  if (named !== undefined && named !== "") return named;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServerOptions {
  /** The server's password (requirepass); `url` then carries it. */
  readonly password?: string;
}

export async function startRedisServer(binary = findRedisServer(), opts: RedisServerOptions = {}): Promise<RedisServer> {
  if (binary === undefined) throw new Error("no redis-server: install it (apt-get install redis-server) or set TESSERA_REDIS_SERVER to its path");
  const dir = await mkdtemp(join(tmpdir(), "tessera-redis-"));
  let lastError = "";
  // The free port may be taken between the probe and redis binding it: try a few.
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    const child = spawn(
      binary,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
        "--loglevel",
        "warning",
        ...(opts.password === undefined ? [] : ["--requirepass", opts.password]),
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const spawnError = new Promise<string>((resolve) => child.once("error", (err) => resolve(err.message)));
    const url = `redis://${opts.password === undefined ? "" : `:${encodeURIComponent(opts.password)}@`}127.0.0.1:${port}`;
    const ready = await Promise.race([waitForPing(url, child), spawnError]);
    if (ready === true) return { url, port, pid: child.pid ?? -1, stop: () => stopServer(child, dir) };
    lastError = typeof ready === "string" ? ready : output.trim();
    child.kill("SIGKILL");
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`redis-server (${binary}) did not start: ${lastError || "no output"}`);
}

async function waitForPing(url: string, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    client.on("error", () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === "PONG") return true;
    } catch {
      // not up yet
    } finally {
      client.disconnect();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function stopServer(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
}

/**
 * For test files: the redis-server to test with, or undefined (the tests skip, saying why) when
 * there is none on this machine. In CI (CI=true) a missing redis-server is an error: .ci/run
 * installs it, so its absence there is a broken setup, not a reason to skip.
 */
export function redisServerForTests(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const binary = findRedisServer(env);
  if (binary === undefined && env.CI === "true") {
    throw new Error("redis-server is missing in CI: .ci/run installs it (apt-get install redis-server); the queue tests cannot run without it");
  }
  return binary;
}

export const NO_REDIS_SERVER = "no redis-server on this machine (apt-get install redis-server, or set TESSERA_REDIS_SERVER): the queue tests are skipped";

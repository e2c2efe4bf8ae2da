/**
 * A worker's sandbox cannot reach the job queue (issue 33: student code in a worker's sandbox read
 * and wrote the queue's keys). The grading process here holds what a worker holds: a connection
 * to a Redis with a password, and the password and URL in its environment. The sandbox's process,
 * inspected from outside while the student's code runs, has none of them: no variable naming
 * Redis or holding the password, no descriptor of the connection, and (where the machine allows
 * it) no network at all. What student code can touch inside the isolate (no process, no fetch, no
 * sockets) is sandbox-escapes.test.ts's.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { Dispatcher } from "@tessera/queue";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "@tessera/queue/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { probeConfinement } from "../src/sandbox/os-confinement.js";
import { prepareSubmissionFile } from "../src/sandbox/index.js";

const FILE = "gemm_relu_add.ts";
const binary = redisServerForTests();
const linux = process.platform === "linux";

/** The inodes of this process's sockets. */
function socketInodes(pid: number | "self"): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(link);
      if (match !== null) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** True when `pid` is a child or grandchild of this process. */
function descendsFromUs(pid: number): boolean {
  let current = pid;
  for (let depth = 0; depth < 3; depth++) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${current}/stat`, "utf8");
    } catch {
      return false;
    }
    current = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (current === process.pid) return true;
  }
  return false;
}

/**
 * Whether `pid` runs the sandbox's own program yet: the confinement prefix (`prlimit … -- unshare -n
 * -- node --permission …`) is one process that execs each command in turn, and until `unshare` has
 * entered the empty namespace and exec'd node it is still in ours (a race the loaded CI machine hit).
 */
function pastConfinementPrefix(pid: number): boolean {
  try {
    const program = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
    return !["prlimit", "unshare"].includes(program.slice(program.lastIndexOf("/") + 1));
  } catch {
    return false;
  }
}

/** Processes whose command line mentions `marker`. */
function processesMentioning(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(binary === undefined || !linux)("the sandbox of a worker cannot reach the queue's Redis", () => {
  let redis: RedisServer;
  let client: Dispatcher | undefined;
  let scratch: string;
  const password = `pw-${randomUUID()}`;
  const saved = { password: process.env.TESSERA_REDIS_PASSWORD, url: process.env.TESSERA_REDIS_URL };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "tessera-sandbox-redis-"));
    redis = await startRedisServer(binary, { password });
    process.env.TESSERA_REDIS_PASSWORD = password;
    process.env.TESSERA_REDIS_URL = redis.url;
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await redis?.stop();
    await rm(scratch, { recursive: true, force: true });
    for (const [name, value] of [
      ["TESSERA_REDIS_PASSWORD", saved.password],
      ["TESSERA_REDIS_URL", saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("its process has no Redis variable, no password, no descriptor of the connection", async () => {
    const before = socketInodes("self");
    client = await Dispatcher.open(redis.url, { prefix: `t${randomUUID().slice(0, 8)}` });
    await client.counts();
    const redisSockets = [...socketInodes("self")].filter((inode) => !before.has(inode));
    expect(redisSockets.length).toBeGreaterThan(0);

    const dir = join(scratch, "submission");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, FILE), "for (;;) {}\nexport function t(): void {}\n");
    const prepared = await prepareSubmissionFile(dir, FILE);
    try {
      const start = workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), 64);
      const running = prepared.run([{ id: "t", call: "t", start, args: [] }], { timeoutMs: 4000, heapMb: 256 });
      let pids: number[] = [];
      for (let i = 0; i < 200 && pids.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
        pids = processesMentioning("-permission\0").filter((pid) => descendsFromUs(pid) && pastConfinementPrefix(pid));
      }
      expect(pids.length, "the sandbox's process was not found").toBeGreaterThan(0);
      const netns = await probeConfinement();
      for (const pid of pids) {
        let environ = "";
        let sockets = new Set<string>();
        try {
          environ = readFileSync(`/proc/${pid}/environ`, "utf8");
          sockets = socketInodes(pid);
        } catch {
          continue; // exited meanwhile
        }
        expect(environ).not.toContain(password);
        expect(environ).not.toMatch(/REDIS/i);
        for (const inode of redisSockets) expect(sockets.has(inode), `the sandbox holds the Redis connection (socket ${inode})`).toBe(false);
        if (netns.unshare !== undefined) expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
      }
      expect((await running).exit).toEqual({ kind: "timeout", afterMs: 4000 });
    } finally {
      await prepared.dispose();
    }
  }, 60_000);
});

if (binary === undefined || !linux) describe("the sandbox of a worker cannot reach the queue's Redis", () => it.skip(NO_REDIS_SERVER, () => {}));

/**
 * Batch grading and a tuning round through the job queue: a private redis-server, three
 * `tessera-grade worker` processes on this machine (CPU-only: simulator numerics), the
 * dispatcher in this process. One worker is killed (SIGKILL) in the middle of a grading: the
 * submission is graded by another worker, once; every submission has exactly one outcome.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HANDIN_FILES, assignmentRoot, writeZip } from "@tessera/assignment-gemm-relu-add";
import { target } from "@tessera/codegen";
import { vectorAdd } from "@tessera/ir";
import { LocalBuilder, SimulatedRunner, type Runner, tuneTIR } from "@tessera/meta-schedule";
import { QueueRunner } from "@tessera/meta-schedule/measure-queue";
import { Dispatcher, measureDispatch } from "@tessera/queue";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "@tessera/queue/testing";
import type { LoopRV, Schedule } from "@tessera/schedule";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { gradeOne } from "../src/batch/grade-one.js";
import { runBatch } from "../src/batch/run-batch.js";
import { loadManifest } from "../src/manifest/index.js";
import { GRADE_JOB, gradeJobPayload } from "../src/queue/grade-job.js";
import { queueGrader } from "../src/queue/queue-grader.js";
import { type WorkerProcess, alive, spawnGradeWorker } from "./support/queue-workers.js";

const binary = redisServerForTests();
const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const prefix = `t${randomUUID().slice(0, 8)}`;
const queue = { prefix, lockDurationMs: 3000, stalledIntervalMs: 500, backoffMs: 50, attempts: 2 };

let scratch: string;
let journal: string;
let holdFile: string;

function journalOf(what: "start" | "done"): string[][] {
  return existsSync(journal)
    ? readFileSync(journal, "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" "))
        .filter((l) => l[0] === what)
    : [];
}

async function until<T>(what: string, probe: () => T | undefined, limitMs = 30_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(binary === undefined)("grading and tuning through the job queue, three worker processes", () => {
  let redis: RedisServer;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "tessera-queue-workers-"));
    journal = join(scratch, "journal.txt");
    holdFile = join(scratch, "held-by.txt");
    redis = await startRedisServer(binary);
    const env = {
      TESSERA_QUEUE_PREFIX: prefix,
      TESSERA_QUEUE_LOCK_MS: "3000",
      TESSERA_QUEUE_STALLED_MS: "500",
      TESSERA_QUEUE_BACKOFF_MS: "50",
      TESSERA_QUEUE_ATTEMPTS: "2",
      TESSERA_QUEUE_TEST_JOURNAL: journal,
      // The first worker to take the starter's job sits on it: the test kills that worker.
      TESSERA_QUEUE_TEST_HOLD: "/starter:60000",
      TESSERA_QUEUE_TEST_HOLD_FILE: holdFile,
    };
    workers.push(...(await Promise.all(["w1", "w2", "w3"].map((name) => spawnGradeWorker(["--redis", redis.url, "--no-gpu", "--name", name], env)))));
  });

  afterAll(async () => {
    for (const w of workers) if (alive(w)) w.child.kill("SIGKILL");
    await redis?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it("grades a batch; the worker killed in the middle of a grading loses nothing, and nothing is graded twice", async () => {
    const dir = join(scratch, "submissions");
    await mkdir(join(dir, "solution"), { recursive: true });
    for (const f of ["gemm_relu_add.ts", "trace_submission.ts"]) await copyFile(join(binding.root, "solution", f), join(dir, "solution", f));
    const starter = await Promise.all(HANDIN_FILES.map(async (name) => ({ name, data: await readFile(join(assignmentRoot(), name)) })));
    await writeFile(join(dir, "starter.zip"), writeZip(starter));
    await mkdir(join(dir, "nobody"));
    await writeFile(join(dir, "garbled.zip"), "not a zip archive");
    const out = join(scratch, "out");

    const grader = await queueGrader(redis.url, { binding, manifest, noGpu: true, numerics: { rounds: 1 } }, queue);
    const killer = (async () => {
      const holder = Number(await until("a worker to hold the starter's job", () => (existsSync(holdFile) ? readFileSync(holdFile, "utf8") : undefined)));
      const victim = workers.find((w) => w.pid === holder);
      victim?.child.kill("SIGKILL");
      return { holder, victim };
    })();
    let result;
    try {
      result = await runBatch({ dir, out, binding, manifest, noGpuReason: "test", grader });
    } finally {
      await grader.dispose();
    }
    const { holder, victim } = await killer;
    expect(await victim?.exited).toBe("SIGKILL");

    const scores = result.outcomes.map((o) => [o.name, o.status, o.status === "graded" ? o.score : o.error]);
    expect(scores).toEqual([
      ["garbled", "error", expect.stringContaining("garbled.zip")],
      ["nobody", "error", expect.stringContaining("gemm_relu_add.ts")],
      ["solution", "graded", 80],
      ["starter", "graded", 0],
    ]);
    expect(result.mode).toBe("queue");
    const csv = await readFile(join(out, "summary.csv"), "utf8");
    expect(csv.trim().split("\n")).toHaveLength(5);
    // What a worker says about a submission is what grading here says (names included).
    for (const name of ["garbled", "nobody"]) {
      const local = await gradeOne(
        { name, kind: name === "garbled" ? "zip" : "folder", path: join(dir, name === "garbled" ? "garbled.zip" : name) },
        { binding, manifest },
      );
      const remote = JSON.parse(await readFile(join(out, name, "results.json"), "utf8")) as { output: string };
      expect(remote.output).toBe(local.results.output);
      expect(await readFile(join(out, name, "report.txt"), "utf8")).toBe(local.reportText);
    }
    // Exactly one finished grading per submission; the starter's by a worker that was not killed.
    const done = journalOf("done");
    for (const name of ["garbled", "nobody", "solution", "starter"])
      expect(
        done.filter((l) => l[1]?.endsWith(`/${name}`)),
        name,
      ).toHaveLength(1);
    expect(done.find((l) => l[1]?.endsWith("/starter"))?.[2]).not.toBe(String(holder));
    expect(journalOf("start").filter((l) => l[2] === String(holder) && l[1]?.endsWith("/starter"))).toEqual([]);
  });

  it("runs a simulated tuning round on the workers: the same trials and latencies as the simulated runner here", async () => {
    const dispatcher = await Dispatcher.open(redis.url, queue);
    const h100 = target("nvidia/h100");
    const splitAndBind = (sch: Schedule): void => {
      const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
      const [outer, inner] = sch.samplePerfectTile(i, 2, 1024);
      const [bx, tx] = sch.split(i, [outer, inner]) as [LoopRV, LoopRV];
      sch.bind(bx, "blockIdx.x");
      sch.bind(tx, "threadIdx.x");
    };
    const tuneWith = async (runner: Runner) =>
      tuneTIR(vectorAdd(4096).func, h100, {
        workDir: await mkdtemp(join(scratch, "tune-")),
        space: splitAndBind,
        strategy: "replay-trace",
        costModel: "none",
        builder: new LocalBuilder({ maxWorkers: 0, compile: "none" }),
        runner,
        database: "memory",
        maxTrialsGlobal: 8,
        numTrialsPerIter: 8,
        seed: 3,
        writeCurve: false,
      });
    try {
      const remote = await tuneWith(new QueueRunner({ dispatch: measureDispatch(dispatcher) }));
      const local = await tuneWith(new SimulatedRunner());
      expect(remote.history.length).toBe(8);
      expect(remote.history.map((t) => t.latencySecs)).toEqual(local.history.map((t) => t.latencySecs));
      expect(remote.history.every((t) => t.latencySecs < 1)).toBe(true);
    } finally {
      await dispatcher.close();
    }
  });

  it("a grade job for another version of the manifest is refused into the dead-letter queue, with the reason", async () => {
    const dispatcher = await Dispatcher.open(redis.url, queue);
    try {
      const payload = await gradeJobPayload({ name: "solution", kind: "folder", path: join(binding.root, "solution") }, { binding, manifest, noGpu: true });
      const stale = { ...payload, settings: { ...payload.settings, manifestDigest: "0".repeat(64) } };
      await expect(dispatcher.dispatch(GRADE_JOB, stale, { key: "stale" })).rejects.toThrow(
        /the manifest of gemm-relu-add on this worker .* is not the dispatcher's/,
      );
      const letter = (await dispatcher.deadLetters()).find((d) => d.jobId === "grade.stale");
      expect(letter).toMatchObject({ kind: "grade", attemptsMade: 1, reason: expect.stringContaining("run workers of the same version") });
    } finally {
      await dispatcher.close();
    }
  });

  it("the workers exit with 0 on SIGTERM", async () => {
    const running = workers.filter(alive);
    expect(running).toHaveLength(2);
    for (const w of running) w.child.kill("SIGTERM");
    expect(await Promise.all(running.map((w) => w.exited))).toEqual([0, 0]);
    for (const w of running) expect(w.output()).toMatch(/\] stopped\n/);
  });
});

if (binary === undefined) describe("grading and tuning through the job queue", () => it.skip(NO_REDIS_SERVER, () => {}));

/**
 * What comes back from a worker is checked against the job before the batch records it, and the
 * batch writes only inside OUT (issue 33: a rogue worker on the queue's Redis completed jobs with
 * 100 of 80 points, and its result name `../../…` made the dispatcher write outside OUT). Limits
 * carried by a job are capped so that no timer overflows.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { handlerFor, startWorker } from "@tessera/queue";
import { NO_REDIS_SERVER, type RedisServer, redisServerForTests, startRedisServer } from "@tessera/queue/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import type { SubmissionOutcome } from "../src/batch/grade-one.js";
import { plainNameProblem } from "../src/batch/plain-name.js";
import { runBatch } from "../src/batch/run-batch.js";
import type { SubmissionGrader } from "../src/batch/submission-grader.js";
import { loadManifest } from "../src/manifest/index.js";
import { GRADE_JOB, GradeJobPayloadSchema, MAX_JOB_TIMEOUT_MS } from "../src/queue/grade-job.js";
import { gradeResultProblem } from "../src/queue/grade-result-check.js";
import { queueGrader } from "../src/queue/queue-grader.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const firstTask = manifest.tasks[0]!;

/** A graded outcome of `name` whose single task earns `points` of the task's maximum. */
type GradedOutcome = Extract<SubmissionOutcome, { status: "graded" }>;

function outcome(name: string, points: number, total = points): GradedOutcome {
  return {
    name,
    status: "graded",
    seconds: 1,
    score: total,
    maxScore: manifest.totalPoints,
    tasks: [{ id: firstTask.id, points, maxPoints: firstTask.points }],
    numerics: {},
    reportText: "report\n",
    results: {
      score: total,
      execution_time: 1,
      output: "",
      visibility: "visible",
      stdout_visibility: "visible",
      tests: [{ name: firstTask.title, score: points, max_score: firstTask.points, output: "", visibility: "visible" }],
    },
  };
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-result-check-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("a worker's result checked against the job", () => {
  it("accepts an honest outcome", () => {
    expect(gradeResultProblem(outcome("alice", firstTask.points), "alice", manifest)).toBeUndefined();
  });

  it("refuses scores above the manifest's maximum, per task and in total, and negative or non-finite ones", () => {
    const total = manifest.totalPoints;
    expect(gradeResultProblem({ ...outcome("alice", firstTask.points), score: total + 20, maxScore: total }, "alice", manifest)).toMatch(/score/);
    expect(gradeResultProblem({ ...outcome("alice", 0), maxScore: total + 20 }, "alice", manifest)).toMatch(/maximum score/);
    expect(gradeResultProblem(outcome("alice", firstTask.points + 5), "alice", manifest)).toMatch(/test|task/);
    expect(gradeResultProblem(outcome("alice", -1), "alice", manifest)).toMatch(/outside/);
    expect(gradeResultProblem(outcome("alice", Number.NaN), "alice", manifest)).toMatch(/outside/);
    const inflated = outcome("alice", firstTask.points);
    expect(gradeResultProblem({ ...inflated, results: { ...inflated.results, score: manifest.totalPoints + 1 } }, "alice", manifest)).toMatch(
      /results\.json.s score/,
    );
    expect(gradeResultProblem({ ...inflated, tasks: [{ id: "no-such-task", points: 1, maxPoints: 1 }], score: 1 }, "alice", manifest)).toMatch(/no-such-task/);
    expect(gradeResultProblem({ ...inflated, tasks: [...inflated.tasks, ...inflated.tasks] }, "alice", manifest)).toMatch(/twice/);
  });

  it("refuses the outcome of another submission", () => {
    expect(gradeResultProblem(outcome("../../../../tmp/x", 0), "alice", manifest)).toMatch(/not of "alice"/);
  });
});

describe("plain names and capped limits", () => {
  it("a plain name has no separator and is not . or ..", () => {
    for (const bad of ["", ".", "..", "a/b", "../x", "/abs", "a\\b", "x\0"]) expect(plainNameProblem(bad), bad).toBeDefined();
    for (const good of ["alice", 'doe, "jj"', "a..b", ".hidden"]) expect(plainNameProblem(good), good).toBeUndefined();
  });

  it("a grade job with a path for a name or limits above the caps is malformed", () => {
    const payload = {
      submission: { name: "alice", fileName: "alice.zip", kind: "zip", base64: "" },
      settings: { assignment: DEFAULT_ASSIGNMENT, manifestDigest: "0".repeat(64), noGpu: true, limits: { timeoutMs: 60_000, heapMb: 1024 } },
    };
    expect(GradeJobPayloadSchema.safeParse(payload).success).toBe(true);
    const named = (name: string) => ({ ...payload, submission: { ...payload.submission, name } });
    expect(GradeJobPayloadSchema.safeParse(named("../../../../tmp/x")).success).toBe(false);
    const limited = (timeoutMs: number, heapMb = 1024) => ({ ...payload, settings: { ...payload.settings, limits: { timeoutMs, heapMb } } });
    expect(GradeJobPayloadSchema.safeParse(limited(1e12)).success).toBe(false);
    expect(GradeJobPayloadSchema.safeParse(limited(MAX_JOB_TIMEOUT_MS + 1)).success).toBe(false);
    expect(GradeJobPayloadSchema.safeParse(limited(60_000, 1e9)).success).toBe(false);
    // The grading's own timer runs for 20 times the timeout: below Node's largest timer.
    expect(20 * MAX_JOB_TIMEOUT_MS).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it("the batch stores an outcome under its submission's name only: one naming a path is refused, nothing is written outside OUT", async () => {
    const dir = join(scratch, "subs");
    await mkdir(join(dir, "alice"), { recursive: true });
    const out = join(scratch, "out", "batch");
    const outside = `../../escaped-${randomUUID().slice(0, 8)}`;
    const grader: SubmissionGrader = { concurrency: 1, mode: "in-process", grade: async () => outcome(outside, 0), dispose: async () => undefined };
    const result = await runBatch({ dir, out, binding, manifest, grader });
    expect(result.outcomes).toEqual([expect.objectContaining({ name: "alice", status: "error", error: expect.stringContaining("refused") })]);
    expect(existsSync(join(out, outside))).toBe(false);
    expect(await readdir(join(scratch, "out"))).toEqual(["batch"]);
    expect(JSON.parse(await readFile(join(out, "alice", "outcome.json"), "utf8"))).toMatchObject({ name: "alice", status: "error" });
  });
});

const binary = redisServerForTests();

describe.skipIf(binary === undefined)("a rogue worker on the queue's Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(binary!);
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it("its inflated scores and path-like names are refused: the submissions are errors, nothing is recorded or written outside OUT", async () => {
    const queue = { prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 3000, stalledIntervalMs: 500, backoffMs: 50, attempts: 1 };
    const outside = `../../../../${scratch.slice(1)}/rogue-${randomUUID().slice(0, 8)}`;
    const rogue = await startWorker({
      redisUrl: redis.url,
      settings: queue,
      log: () => undefined,
      handlers: [
        handlerFor(GRADE_JOB, async (payload) => {
          const name = payload.submission.name === "alice" ? payload.submission.name : outside;
          const points = firstTask.points;
          const bad = outcome(name, points, manifest.totalPoints + 20);
          return { ...bad, results: { ...bad.results, score: manifest.totalPoints + 20 } };
        }),
      ],
    });
    const dir = join(scratch, "rogue-subs");
    await mkdir(join(dir, "alice"), { recursive: true });
    await mkdir(join(dir, "bob"), { recursive: true });
    const out = join(scratch, "rogue-out");
    const grader = await queueGrader(redis.url, { binding, manifest, noGpu: true }, queue);
    try {
      const result = await runBatch({ dir, out, binding, manifest, grader });
      expect(result.outcomes.map((o) => [o.name, o.status])).toEqual([
        ["alice", "error"],
        ["bob", "error"],
      ]);
      for (const o of result.outcomes) expect(o.status === "error" ? o.error : "").toMatch(/result of job .* was refused/);
      expect(existsSync(join(out, outside))).toBe(false);
      expect((await readdir(scratch)).filter((n) => n.startsWith("rogue-") && n !== "rogue-subs" && n !== "rogue-out")).toEqual([]);
    } finally {
      await grader.dispose();
      await rogue.close();
    }
  }, 60_000);
});

if (binary === undefined) describe("a rogue worker on the queue's Redis", () => it.skip(NO_REDIS_SERVER, () => {}));

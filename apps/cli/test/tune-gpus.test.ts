/**
 * `tessera tune --gpus 0,1 --dry-run`: two `tessera worker` processes (one per GPU, on a private
 * redis-server) measure the run's candidates, and the run is the same as without them: for one
 * seed the database and the history are byte for byte those of a run measured in process.
 */
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { NO_REDIS_SERVER, redisServerForTests } from "@tessera/queue/testing";
import { describe, expect, it } from "vitest";
import { type TuneDeps, defaultTuneDeps, runTune } from "../src/commands/tune.js";
import { captureIO } from "./capture.js";

const binary = redisServerForTests();
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "tessera-tune-gpus-"));
const vectorAdd = join(repoRoot, "examples", "vector_add.py");

/**
 * `tessera worker` as `pnpm tessera worker` starts it (the test runner is not the CLI that could
 * start itself): scripts/fast-start/run.mjs, from a bundle of the sources rebuilt whenever one
 * changed, rather than the sources through tsx (about 2 CPU s a worker).
 */
const deps: TuneDeps = {
  ...defaultTuneDeps,
  progressStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
  workerCommand: { file: process.execPath, args: ["--conditions=@tessera/source", join(repoRoot, "scripts/fast-start/run.mjs"), "tessera"], cwd: repoRoot },
};

async function tune(workDir: string, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  // No replay worker thread (about 4 CPU s a run, started cold): the measuring workers are under test.
  const args = [
    vectorAdd,
    "--target",
    "nvidia/h100",
    "--trials",
    "4",
    "--trials-per-iter",
    "2",
    "--seed",
    "5",
    "--work-dir",
    workDir,
    "--dry-run",
    "--search-workers",
    "0",
    ...extra,
  ];
  const code = await runTune(args, io, deps);
  return { code, out: io.out, err: io.err };
}

describe.skipIf(binary === undefined)(`tessera tune --gpus (${binary === undefined ? NO_REDIS_SERVER : "private redis-server"})`, () => {
  it("measures on one worker per GPU and tunes as in process", async () => {
    const here = join(dir, "here");
    const spread = join(dir, "spread");
    const local = await tune(here);
    expect(local.code, local.err).toBe(0);
    if (binary !== undefined) process.env.TESSERA_REDIS_SERVER = binary;
    const queued = await tune(spread, "--gpus", "0,1");
    expect(queued.code, queued.err).toBe(0);
    expect(queued.err).toContain(`tessera tune: measuring on GPUs 0, 1, one worker each (logs in ${join(spread, "workers")})`);
    for (const f of ["database_tuning_record.json", "database_workload.json", "tuning-history.json"])
      expect(readFileSync(join(spread, f), "utf8"), f).toBe(readFileSync(join(here, f), "utf8"));
    expect(readdirSync(join(spread, "workers")).sort()).toEqual(["worker-gpu0.log", "worker-gpu1.log"]);
    const logs = [0, 1].map((g) => readFileSync(join(spread, "workers", `worker-gpu${g}.log`), "utf8"));
    expect(logs[0]).toMatch(/ready: measure jobs from redis:\/\/127\.0\.0\.1:\d+ on CUDA_VISIBLE_DEVICES=0/);
    expect(logs[1]).toMatch(/ready: measure jobs from redis:\/\/127\.0\.0\.1:\d+ on CUDA_VISIBLE_DEVICES=1/);
    // Every measurement was one job, done by one of the two workers; the password stayed out of the logs.
    const done = logs.join("").match(/measure\.[^:]+: done in/g) ?? [];
    const history = JSON.parse(readFileSync(join(spread, "tuning-history.json"), "utf8")) as { trials: unknown[] };
    expect(history.trials.length).toBeGreaterThan(0);
    expect(done.length).toBe(history.trials.length);
    expect(logs.join("")).not.toMatch(/redis:\/\/:[^*]/);
  }, 300_000);
});

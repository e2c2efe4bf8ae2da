/**
 * Two tuning runs on one work dir (issue 33): the database files each run's records under its own
 * workload even when both append at once, a run locks the work dir against a second one (a stale
 * lock of a dead process is taken over), and the tuning history is replaced atomically.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { target } from "@tessera/codegen";
import { Schedule } from "@tessera/schedule";
import { vectorAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { tempDirs } from "./temp-dirs.js";
import { JSONDatabase, type TuningRecord, argsInfoOf, tuneTIR, workloadOf } from "../../src/index.js";
import { LOCK_FILE, WorkDirBusyError, lockWorkDir } from "../../src/database/work-dir-lock.js";
import { gemmWorkload } from "../search/gemm-fixture.js";

const workDir = tempDirs("tessera-workdir-");

const H100 = { name: "nvidia/h100", arch: "sm_90", maxThreadsPerBlock: 1024, maxSharedMemoryPerBlock: 49152 };

function recordOf(workload: ReturnType<typeof workloadOf>, runSecs: number[]): TuningRecord {
  return { workload, trace: new Schedule(workload.func).trace.toJSON(), runSecs, target: H100, argsInfo: argsInfoOf(workload.func) };
}

describe("two runs appending to one database", () => {
  it("file every record under its own workload, whichever appended its workload first", () => {
    const dir = workDir();
    const gemm = gemmWorkload();
    const vadd = workloadOf(vectorAdd(64).func, "vadd");
    // Both opened on an empty directory: each thinks the next workload is number 0.
    const first = new JSONDatabase(dir);
    const second = new JSONDatabase(dir);
    for (let k = 1; k <= 4; k++) {
      first.commitTuningRecord(recordOf(gemm, [k * 1e-3]));
      second.commitTuningRecord(recordOf(vadd, [k * 1e-4]));
    }
    const filed = (db: JSONDatabase, name: string) =>
      db
        .getAllTuningRecords()
        .filter((r) => r.workload.name === name)
        .map((r) => r.runSecs);
    const reopened = new JSONDatabase(dir);
    expect(filed(reopened, gemm.name)).toEqual([1, 2, 3, 4].map((k) => [k * 1e-3]));
    expect(filed(reopened, "vadd")).toEqual([1, 2, 3, 4].map((k) => [k * 1e-4]));
  });
});

describe("the work dir lock", () => {
  it("admits one run at a time, naming the holder, and is free again after release", () => {
    const dir = workDir();
    const lock = lockWorkDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(() => lockWorkDir(dir)).toThrow(WorkDirBusyError);
    expect(() => lockWorkDir(dir)).toThrow(new RegExp(`being tuned by another run \\(pid ${process.pid} on `));
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockWorkDir(dir).release();
  });

  it("takes over the lock of a process that is gone, with a warning; refuses one of another host", () => {
    const dir = workDir();
    const dead = spawnSync(process.execPath, ["-e", "process.exit(0)"]).pid!;
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: dead, host: hostname(), started: "2026-01-01T00:00:00.000Z" }));
    const warnings: string[] = [];
    const lock = lockWorkDir(dir, (_, message) => warnings.push(message));
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`pid ${dead}.* is gone; its lock is taken over`))]);
    lock.release();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: "another-host", started: "2026-01-01T00:00:00.000Z" }));
    expect(() => lockWorkDir(dir)).toThrow(/pid 1 on another-host.*remove .*tune\.lock/);
  });

  it("a tuning run refuses a work dir another run holds", async () => {
    const dir = workDir();
    const lock = lockWorkDir(dir);
    try {
      await expect(
        tuneTIR(vectorAdd(64).func, target("nvidia/h100"), { workDir: dir, maxTrialsGlobal: 2, runner: "simulated", writeCurve: false }),
      ).rejects.toThrow(WorkDirBusyError);
    } finally {
      lock.release();
    }
  });
});

describe("a runner's impossible times", () => {
  it("become a failure that says so, so the scheduler never ranks them best", async () => {
    const { checkedRunnerResult } = await import("../../src/database/run-secs.js");
    expect(checkedRunnerResult({ ok: true, runSecs: [0] })).toEqual({ ok: false, error: expect.stringMatching(/impossible measurement: run_secs\[0\] is 0/) });
    expect(checkedRunnerResult({ ok: true, runSecs: [] })).toMatchObject({ ok: false });
    expect(checkedRunnerResult({ ok: true, runSecs: [Number.NaN] })).toMatchObject({ ok: false });
    expect(checkedRunnerResult({ ok: true, runSecs: [2e-3, 1e-3] })).toEqual({ ok: true, runSecs: [2e-3, 1e-3] });
    expect(checkedRunnerResult({ ok: false, error: "x" })).toEqual({ ok: false, error: "x" });
  });
});

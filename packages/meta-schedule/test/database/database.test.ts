import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { target } from "@tessera/codegen";
import { gemmReluAdd, printTVMScript, structuralEqual, vectorAdd } from "@tessera/ir";
import { Schedule, type Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempDirs } from "./temp-dirs.js";
import {
  DatabaseError,
  type Database,
  JSONDatabase,
  MemoryDatabase,
  type Postproc,
  ScheduleFnSpace,
  type TuningRecord,
  argsInfoOf,
  queryBestSchedule,
  replayWithPostprocs,
  tuneContext,
  workloadOf,
} from "../../src/index.js";
import { TUNING_RECORD_FILE, WORKLOAD_FILE } from "../../src/database/json-database.js";
import { gemmTileSpace, gemmWorkload, threadLimit } from "../search/gemm-fixture.js";

const workDir = tempDirs("tessera-db-");

const H100 = { name: "nvidia/h100", arch: "sm_90", maxThreadsPerBlock: 1024, maxSharedMemoryPerBlock: 49152, device: "simulated" };

/** Postprocessing that records instructions in the trace (an unroll annotation), as real postprocs do. */
const annotateUnroll: Postproc = {
  name: "annotateUnroll",
  apply(sch) {
    sch.annotate(sch.getBlock("gemm"), "pragma_auto_unroll_max_step", 16);
    return { ok: true };
  },
};

/** `n` valid candidates of the gemm tile space (postprocessed) as records with the given run times. */
function candidates(n: number, seed = 1) {
  const workload = gemmWorkload();
  const ctx = tuneContext(workload, target("nvidia/h100"), { seed });
  const [space] = new ScheduleFnSpace(gemmTileSpace).generateDesignSpace(ctx);
  const out = [];
  for (let s = 0; out.length < n; s++) {
    const r = replayWithPostprocs(ctx, space!.trace, [threadLimit, annotateUnroll], { freshDecisions: true, seed: seed * 1000 + s });
    if (r.ok) out.push(r.sch);
  }
  return { workload, schedules: out };
}

function record(workload: ReturnType<typeof gemmWorkload>, trace: Trace, runSecs: number[] | undefined): TuningRecord {
  return { workload, trace: trace.toJSON(), runSecs, target: H100, argsInfo: argsInfoOf(workload.func) };
}

describe("MemoryDatabase", () => {
  it("orders records by mean run time and skips failed ones in getTopK", () => {
    const { workload, schedules } = candidates(5);
    const db = new MemoryDatabase();
    db.commitWorkload(workload.func);
    const times = [[3e-3, 5e-3], undefined, [1e-3], [1e10], [2e-3]];
    schedules.forEach((s, k) => db.commitTuningRecord(record(workload, s.trace, times[k])));
    expect(db.size()).toBe(5);
    expect(db.getTopK(workload, 10).map((r) => r.runSecs)).toEqual([[1e-3], [2e-3], [3e-3, 5e-3]]);
    expect(db.getTopK(workload, 1).map((r) => r.runSecs)).toEqual([[1e-3]]);
    expect(db.getTopK(workloadOf(vectorAdd(64).func), 3)).toEqual([]);
    expect(() => db.getTopK(workload, -1)).toThrow(/k must be a non-negative integer/);
  });

  it("knows a workload by structure, not by object", () => {
    const db = new MemoryDatabase();
    const w = db.commitWorkload(gemmReluAdd(64).func);
    expect(db.hasWorkload(gemmReluAdd(64).func)).toBe(true);
    expect(db.commitWorkload(gemmReluAdd(64).func)).toBe(w);
    expect(db.hasWorkload(gemmReluAdd(32).func)).toBe(false);
  });

  it("getTopK agrees with sorting by mean run time (property)", () => {
    const { workload, schedules } = candidates(1);
    const trace = schedules[0]!.trace;
    const runSecs = fc.option(fc.array(fc.oneof(fc.double({ min: 1e-6, max: 1, noNaN: true }), fc.constant(1e10)), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(fc.array(runSecs, { maxLength: 30 }), fc.nat(35), (times, k) => {
        const db = new MemoryDatabase();
        times.forEach((t) => db.commitTuningRecord(record(workload, trace, t)));
        const mean = (t: number[]) => t.reduce((a, b) => a + b, 0) / t.length;
        const expected = times
          .filter((t): t is number[] => t !== undefined && t.every((x) => x < 1e10))
          .map((t, order) => ({ t, order }))
          .sort((a, b) => mean(a.t) - mean(b.t) || a.order - b.order)
          .slice(0, k)
          .map((e) => e.t);
        expect(db.getTopK(workload, k).map((r) => r.runSecs)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});

describe("JSONDatabase", () => {
  function fill(db: Database, n: number) {
    const { workload, schedules } = candidates(n);
    schedules.forEach((s, k) => db.commitTuningRecord(record(workload, s.trace, [(n - k) * 1e-3])));
    return { workload, schedules };
  }

  it("writes TVM's two JSON-lines files and reads them back", () => {
    const dir = workDir();
    const db = new JSONDatabase(dir);
    const { workload, schedules } = fill(db, 4);
    db.commitTuningRecord(record(workload, schedules[0]!.trace, undefined));
    const workloadLines = readFileSync(join(dir, WORKLOAD_FILE), "utf8").trimEnd().split("\n");
    expect(workloadLines).toHaveLength(1);
    expect(JSON.parse(workloadLines[0]!)).toEqual([workload.hash, printTVMScript(workload.func, { funcName: "main" })]);
    const recordLines = readFileSync(join(dir, TUNING_RECORD_FILE), "utf8").trimEnd().split("\n");
    expect(recordLines).toHaveLength(5);
    expect(JSON.parse(recordLines[0]!)).toEqual([
      0,
      [
        schedules[0]!.trace.toJSON(),
        [4e-3],
        H100,
        [
          ["TENSOR", "float32", [64, 64]],
          ["TENSOR", "float32", [64, 64]],
          ["TENSOR", "float32", [64, 64]],
          ["TENSOR", "float32", [64, 64]],
        ],
      ],
    ]);
    expect(JSON.parse(recordLines[4]!)[1][1]).toBeNull();

    const reopened = new JSONDatabase(dir);
    expect(reopened.size()).toBe(5);
    expect(reopened.hasWorkload(gemmReluAdd(64).func)).toBe(true);
    const again = reopened.getAllTuningRecords();
    db.getAllTuningRecords().forEach((r, k) => {
      expect(again[k]!.trace).toEqual(r.trace);
      expect(again[k]!.runSecs).toEqual(r.runSecs);
      expect(again[k]!.target).toEqual(r.target);
      expect(again[k]!.argsInfo).toEqual(r.argsInfo);
    });
    expect(reopened.getTopK(reopened.commitWorkload(workload.func), 2).map((r) => r.runSecs)).toEqual([[1e-3], [2e-3]]);
  });

  it("replays the best record to the very program that was measured", () => {
    const dir = workDir();
    const db = new JSONDatabase(dir);
    const { schedules } = fill(db, 3);
    const best = queryBestSchedule(new JSONDatabase(dir), gemmReluAdd(64).func, target("nvidia/h100"));
    expect(best).toBeDefined();
    expect(best!.record.runSecs).toEqual([1e-3]);
    expect(structuralEqual(best!.sch.func, schedules[2]!.func)).toBe(true);
    expect(queryBestSchedule(db, gemmReluAdd(64).func, "nvidia/tesla-t4")).toBeUndefined();
    expect(queryBestSchedule(db, vectorAdd(64).func)).toBeUndefined();
  });

  it("recovers from a line cut short by a killed run: earlier records read, a warning names file and line, new records append cleanly", () => {
    const dir = workDir();
    const { workload, schedules } = fill(new JSONDatabase(dir), 3);
    const file = join(dir, TUNING_RECORD_FILE);
    const size = statSync(file).size;
    truncateSync(file, size - 40); // the third record loses its end and its newline
    const warnings: string[] = [];
    const reopened = new JSONDatabase(dir, { log: (level, m) => level === "warn" && warnings.push(m) });
    expect(reopened.size()).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${file}:3: the last line is incomplete`);
    expect(readFileSync(`${file}.damaged`, "utf8").length).toBeGreaterThan(100);

    reopened.commitTuningRecord(record(workload, schedules[2]!.trace, [5e-4]));
    const third = new JSONDatabase(dir, { log: () => expect.fail("no warning expected after the repair") });
    expect(third.size()).toBe(3);
    expect(third.getTopK(workload, 1)[0]!.runSecs).toEqual([5e-4]);
  });

  it("a record file cut at any byte reopens with exactly the complete records, and takes new ones (property)", () => {
    const template = workDir();
    const { workload, schedules } = fill(new JSONDatabase(template), 4);
    const bytes = readFileSync(join(template, TUNING_RECORD_FILE));
    const lineEnds = [...bytes.entries()].filter(([, b]) => b === 0x0a).map(([k]) => k);
    fc.assert(
      fc.property(fc.nat(bytes.length), (cut) => {
        const dir = workDir();
        writeFileSync(join(dir, WORKLOAD_FILE), readFileSync(join(template, WORKLOAD_FILE)));
        writeFileSync(join(dir, TUNING_RECORD_FILE), bytes.subarray(0, cut));
        // A line is complete when its text is all there (its newline may be missing).
        const complete = lineEnds.filter((end) => end <= cut).length;
        const db = new JSONDatabase(dir, { log: () => {} });
        expect(db.size()).toBe(complete);
        db.commitTuningRecord(record(workload, schedules[0]!.trace, [7e-3]));
        const reopened = new JSONDatabase(dir, { log: () => expect.fail("the file was repaired; no warning expected") });
        expect(reopened.size()).toBe(complete + 1);
        expect(reopened.getAllTuningRecords().at(-1)!.runSecs).toEqual([7e-3]);
      }),
      { numRuns: 40 },
    );
  });

  it("adds the missing newline of a complete last line before appending", () => {
    const dir = workDir();
    const { workload, schedules } = fill(new JSONDatabase(dir), 2);
    const file = join(dir, TUNING_RECORD_FILE);
    truncateSync(file, statSync(file).size - 1);
    const db = new JSONDatabase(dir);
    expect(db.size()).toBe(2);
    db.commitTuningRecord(record(workload, schedules[0]!.trace, [1]));
    expect(new JSONDatabase(dir).size()).toBe(3);
  });

  it("refuses a corrupt or foreign file with its name and line, and leaves it untouched", () => {
    const dir = workDir();
    fill(new JSONDatabase(dir), 3);
    const file = join(dir, TUNING_RECORD_FILE);
    const lines = readFileSync(file, "utf8").split("\n");
    writeFileSync(file, [lines[0], lines[1]!.slice(0, 30), lines[2], ""].join("\n"));
    expect(() => new JSONDatabase(dir)).toThrow(DatabaseError);
    expect(() => new JSONDatabase(dir)).toThrow(`${file}:2: not a line of a tuning database`);

    const foreign = workDir();
    const wfile = join(foreign, WORKLOAD_FILE);
    writeFileSync(wfile, "hello, I am a text file");
    expect(() => new JSONDatabase(foreign)).toThrow(`${wfile}:1: not a line of a tuning database`);
    expect(readFileSync(wfile, "utf8")).toBe("hello, I am a text file");
    expect(existsSync(`${wfile}.damaged`)).toBe(false);

    writeFileSync(wfile, '{"version": 3}\n');
    expect(() => new JSONDatabase(foreign)).toThrow(`${wfile}:1: expected a workload line [structural_hash, tvmscript]`);
  });

  it("refuses records that name a missing workload or carry an invalid trace", () => {
    const dir = workDir();
    fill(new JSONDatabase(dir), 1);
    const file = join(dir, TUNING_RECORD_FILE);
    const [index, rest] = JSON.parse(readFileSync(file, "utf8")) as [number, unknown[]];
    appendFileSync(file, `${JSON.stringify([index + 4, rest])}\n`);
    expect(() => new JSONDatabase(dir)).toThrow(`${file}:2: the record names workload 4, but the workload file has 1 workload(s)`);
    truncateSync(file, readFileSync(file, "utf8").indexOf("\n") + 1);
    appendFileSync(
      file,
      `${JSON.stringify([0, [{ format: "tessera-trace", version: 1, instructions: [{ kind: "Warp", inputs: [], attrs: [], outputs: [] }], decisions: [] }, [1], H100, []]])}\n`,
    );
    expect(() => new JSONDatabase(dir)).toThrow(/:2: the record's trace is not valid: .*unknown instruction kind "Warp"/);
  });

  it("commits a measured batch at once: the same file as one commit a record, and a batch with an impossible record writes none of it", () => {
    const { workload, schedules } = candidates(4);
    const batch = schedules.map((s, k) => record(workload, s.trace, [(k + 1) * 1e-3]));
    const oneByOne = workDir();
    const dbOne = new JSONDatabase(oneByOne);
    for (const r of batch) dbOne.commitTuningRecord(r);
    const atOnce = workDir();
    const db = new JSONDatabase(atOnce);
    db.commitTuningRecords(batch);
    for (const file of [WORKLOAD_FILE, TUNING_RECORD_FILE]) expect(readFileSync(join(atOnce, file), "utf8")).toBe(readFileSync(join(oneByOne, file), "utf8"));
    expect(db.size()).toBe(4);
    const before = readFileSync(join(atOnce, TUNING_RECORD_FILE), "utf8");
    expect(() => db.commitTuningRecords([batch[0]!, record(workload, schedules[1]!.trace, [0])])).toThrow(/refused: run_secs\[0\] is 0/);
    expect(readFileSync(join(atOnce, TUNING_RECORD_FILE), "utf8")).toBe(before);
    expect(new JSONDatabase(atOnce).size()).toBe(4);
  });

  it("refuses impossible measurements (empty, zero, negative, NaN, not finite) on commit, naming the workload, and writes nothing", () => {
    const dir = workDir();
    const { workload, schedules } = candidates(1);
    const db = new JSONDatabase(dir);
    for (const runSecs of [[], [0], [-1e-3], [Number.NaN], [1e-3, Number.POSITIVE_INFINITY]]) {
      expect(() => db.commitTuningRecord(record(workload, schedules[0]!.trace, runSecs)), JSON.stringify(runSecs)).toThrow(DatabaseError);
      expect(() => new MemoryDatabase().commitTuningRecord(record(workload, schedules[0]!.trace, runSecs))).toThrow(/refused: run_secs/);
    }
    expect(() => db.commitTuningRecord(record(workload, schedules[0]!.trace, [0]))).toThrow(/a record of .* is refused: run_secs\[0\] is 0/);
    // A failed candidate (no time, or the failure time alone) is a record like any other.
    db.commitTuningRecord(record(workload, schedules[0]!.trace, undefined));
    db.commitTuningRecord(record(workload, schedules[0]!.trace, [1e10]));
    expect(new JSONDatabase(dir).getAllTuningRecords()).toHaveLength(2);
  });

  it("refuses a file whose record has run_secs [0] (or empty, or negative) with the file and line, instead of picking it as the best", () => {
    const dir = workDir();
    fill(new JSONDatabase(dir), 2);
    const file = join(dir, TUNING_RECORD_FILE);
    const [index, [trace, , target, args]] = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as [number, [unknown, unknown, unknown, unknown]];
    for (const [runSecs, why] of [
      [[0], /run_secs\[0\] is 0: a run takes a positive time/],
      [[], /run_secs is empty/],
      [[-2e-3], /run_secs\[0\] is -0.002/],
    ] as const) {
      const kept = readFileSync(file, "utf8");
      appendFileSync(file, `${JSON.stringify([index, [trace, runSecs, target, args]])}\n`);
      expect(() => new JSONDatabase(dir)).toThrow(DatabaseError);
      expect(() => new JSONDatabase(dir, { readOnly: true })).toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: .*${why.source}`));
      writeFileSync(file, kept);
    }
  });

  it("says so when no record of the function replays on it", () => {
    const db = new MemoryDatabase();
    const { workload } = candidates(1);
    const other = new Schedule(vectorAdd(64).func);
    other.split(other.getLoops(other.getBlock("C"))[0], [null, 32]);
    db.commitTuningRecord(record(workload, other.trace, [1e-3]));
    expect(() => queryBestSchedule(db, workload.func)).toThrow(
      /none of the 1 record\(s\) of workload main replays on it; the first failed: the tuning record of workload main .* does not replay: .*C/s,
    );
  });

  it("opens read-only without creating, repairing or committing anything", () => {
    const missing = join(workDir(), "nothing-here");
    expect(() => new JSONDatabase(missing, { readOnly: true })).toThrow(`${missing}: no tuning database here`);
    expect(existsSync(missing)).toBe(false);

    const dir = workDir();
    const { workload, schedules } = fill(new JSONDatabase(dir), 3);
    const file = join(dir, TUNING_RECORD_FILE);
    truncateSync(file, statSync(file).size - 25);
    const damaged = readFileSync(file);
    const warnings: string[] = [];
    const db = new JSONDatabase(dir, { readOnly: true, log: (_l, m) => warnings.push(m) });
    expect(db.size()).toBe(2);
    expect(warnings).toEqual([expect.stringContaining(`${file}:3: the last line is incomplete`)]);
    expect(readFileSync(file).equals(damaged)).toBe(true);
    expect(() => db.commitTuningRecord(record(workload, schedules[0]!.trace, [1]))).toThrow(/open read-only/);
    expect(() => db.commitWorkload(vectorAdd(64).func)).toThrow(/open read-only/);
    expect(queryBestSchedule(db, workload.func)!.record.runSecs).toEqual([2e-3]);
  });

  it("explains that a workload stored by TVM cannot be read", () => {
    const dir = workDir();
    writeFileSync(join(dir, WORKLOAD_FILE), `${JSON.stringify(["1234567", Buffer.from('{"root": 1, "nodes": []}').toString("base64")])}\n`);
    expect(() => new JSONDatabase(dir)).toThrow(/database_workload\.json:1: the workload's TVMScript does not parse \(it is JSON: a database written by TVM/);
  });

  it("reports a work directory that cannot be created", () => {
    const file = join(workDir(), "a-file");
    writeFileSync(file, "");
    expect(() => new JSONDatabase(join(file, "db"))).toThrow(DatabaseError);
    expect(() => new JSONDatabase(join(file, "db"))).toThrow(/cannot create the work directory at the file \(ENOTDIR/);
  });

  it("reads base64 workloads and TVM-layout traces", () => {
    const dir = workDir();
    const { workload, schedules } = candidates(1);
    const script = printTVMScript(workload.func, { funcName: "main" });
    writeFileSync(join(dir, WORKLOAD_FILE), `${JSON.stringify(["123", Buffer.from(script).toString("base64")])}\n`);
    const tvmTrace = schedules[0]!.trace.toTVMJSON();
    writeFileSync(join(dir, TUNING_RECORD_FILE), `${JSON.stringify([0, [tvmTrace, [2e-3], H100, [["TENSOR", "float32", [64, 64]]]]])}\n`);
    const db = new JSONDatabase(dir);
    expect(db.hasWorkload(workload.func)).toBe(true);
    const best = queryBestSchedule(db, workload.func);
    expect(structuralEqual(best!.sch.func, schedules[0]!.func)).toBe(true);
  });
});

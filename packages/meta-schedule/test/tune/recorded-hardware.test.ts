/** bench/recorded-hardware.ts, the stand-in GPU of `bench:search-offline`, on one recorded 64-trial H200 run. */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { target } from "@tessera/codegen";
import { fastSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { afterAll, describe, expect, it } from "vitest";
import { RecordedHardware } from "../../bench/recorded-hardware.js";
import { eachRecordedRun, recordedRuns } from "../../bench/recorded-runs.js";
import { lowerAndGenerate } from "../../src/builder/lower-and-generate.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const REPORT = "docs/benchmarks/tuning-gemm-256-2026-11-28/new-defaults-64-trials-seed-1.json.gz";
const WORKLOAD = "gemm_relu_add_2048";

describe("recorded reports committed gzipped (bench/report-files.ts)", () => {
  it("give the same runs and programs as the plain JSON they were made from", () => {
    const plain = mkdtempSync(join(os.tmpdir(), "tessera-report-plain-"));
    const zipped = mkdtempSync(join(os.tmpdir(), "tessera-report-gz-"));
    try {
      writeFileSync(join(plain, "run.json"), gunzipSync(readFileSync(join(repoRoot, REPORT))));
      copyFileSync(join(repoRoot, REPORT), join(zipped, "run.json.gz"));
      const func = gemmReluAdd(2048).func;
      const tgt = target("nvidia/h100");
      const a = recordedRuns(plain, WORKLOAD, func, tgt).runs;
      const b = recordedRuns(zipped, WORKLOAD, func, tgt).runs;
      expect(a.length).toBe(1);
      expect(b.map((r) => [r.cublasMs, r.programs.map((p) => p.ms)])).toEqual(a.map((r) => [r.cublasMs, r.programs.map((p) => p.ms)]));
      expect(b[0]!.programs.length).toBeGreaterThan(0);
    } finally {
      rmSync(plain, { recursive: true, force: true });
      rmSync(zipped, { recursive: true, force: true });
    }
  });
});

describe("RecordedHardware", () => {
  const dir = mkdtempSync(join(os.tmpdir(), "tessera-recorded-hardware-"));
  copyFileSync(join(repoRoot, REPORT), join(dir, "run.json.gz"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const func = gemmReluAdd(2048).func;
  const tgt = target("nvidia/h100");

  it("runs a recorded program in its measured time over cuBLAS, any other in a finite estimate; a cache gives the same", async () => {
    const hw = RecordedHardware.build([dir], WORKLOAD, func, tgt);
    const { runs } = recordedRuns(dir, WORKLOAD, func, tgt);
    const run = runs[0]!;
    expect(hw.runs).toBe(1);
    expect(hw.cublasMs).toBe(run.cublasMs);
    const built = run.programs.map((p) => ({ ms: p.ms, artifact: lowerAndGenerate({ func: p.candidate.sch.func, target: tgt, keepLowered: true }) }));
    expect(hw.programs).toBe(new Set(built.map((b) => b.artifact.source)).size);
    // Each recorded program: the median of the times measured for its CUDA source.
    const results = await hw.run(built.map((b) => ({ artifact: b.artifact, argsInfo: [] })));
    built.forEach((b, k) => {
      const same = built
        .filter((o) => o.artifact.source === b.artifact.source)
        .map((o) => o.ms)
        .sort((x, y) => x - y);
      const m = same.length >> 1;
      const median = same.length % 2 === 1 ? same[m]! : (same[m - 1]! + same[m]!) / 2;
      const r = results[k]!;
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.runSecs[0]! * 1e3).toBeCloseTo(median, 9);
    });
    expect(hw.recordedHits).toBe(built.length);
    // A program no run measured (the hand-written fast schedule): an estimate, the same every time.
    const fast = lowerAndGenerate({ func: fastSchedule(2048).func, target: tgt, keepLowered: true });
    const [a, b] = await hw.run([
      { artifact: fast, argsInfo: [] },
      { artifact: fast, argsInfo: [] },
    ]);
    expect(hw.estimated).toBe(2);
    expect(a?.ok === true && b?.ok === true && a.runSecs[0]! > 0 && Number.isFinite(a.runSecs[0]!) && a.runSecs[0] === b.runSecs[0]).toBe(true);
    // Through a cache file: the table is read back instead of rebuilt.
    const cache = join(dir, "cache.json");
    RecordedHardware.cached(cache, "key", () => hw);
    const again = RecordedHardware.cached(cache, "key", () => {
      throw new Error("rebuilt although the cache holds the same key");
    });
    const [c] = await again.run([{ artifact: fast, argsInfo: [] }]);
    expect(c).toEqual(a);
    expect(again.programs).toBe(hw.programs);
    let rebuilt = false;
    RecordedHardware.cached(cache, "another key", () => {
      rebuilt = true;
      return hw;
    });
    expect(rebuilt).toBe(true);
    // A cache cut short (a run killed while writing) is rebuilt over, not a SyntaxError.
    writeFileSync(cache, '{"key": "key", "entr');
    let rebuiltOverCorrupt = false;
    RecordedHardware.cached(cache, "key", () => {
      rebuiltOverCorrupt = true;
      return hw;
    });
    expect(rebuiltOverCorrupt).toBe(true);
    expect(
      RecordedHardware.cached(cache, "key", () => {
        throw new Error("the rebuilt table was not written back");
      }).programs,
    ).toBe(hw.programs);
  }, 120_000);
});

describe("eachRecordedRun", () => {
  it("reads and rebuilds a report only once the run before it is handed over, so a caller can let each run's programs go", () => {
    // Regression: RecordedHardware.build kept every run's rebuilt schedules at once and outgrew the
    // heap with sessions 17–21's reports. Two small reports (two programs each) in one folder.
    const dir = mkdtempSync(join(os.tmpdir(), "tessera-recorded-runs-"));
    try {
      const report = JSON.parse(gunzipSync(readFileSync(join(repoRoot, REPORT))).toString()) as { tuned: { top: unknown[] }[] };
      for (const run of report.tuned) run.top = run.top.slice(0, 2);
      for (const name of ["a.json", "b.json"]) writeFileSync(join(dir, name), JSON.stringify(report));
      const runs = eachRecordedRun(dir, WORKLOAD, gemmReluAdd(2048).func, target("nvidia/h100"));
      const first = runs.next();
      expect(first.done === false && first.value.programs.length).toBe(2);
      // The second report is not read yet: removed now, it gives no run.
      rmSync(join(dir, "b.json"));
      expect([...runs]).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

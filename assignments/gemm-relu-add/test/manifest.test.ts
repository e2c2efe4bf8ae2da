import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManifestError, loadManifest, parseManifest, resolveSize } from "../../../apps/autograder/src/manifest/index.js";
import * as solution from "../solution/gemm_relu_add.js";
import { HANDIN_FILES, STUDENT_FILES, manifestPath } from "../src/index.js";

const manifest = loadManifest(manifestPath());

function withChange(change: (m: Record<string, any>) => void): unknown {
  const copy = structuredClone(manifest) as Record<string, any>;
  change(copy);
  return copy;
}

describe("grading manifest", () => {
  it("loads, and its tasks add up to 100 points (80 for part 1, 20 for part 2)", () => {
    expect(manifest.assignment).toBe("gemm-relu-add");
    const total = manifest.tasks.reduce((sum, t) => sum + t.points, 0);
    expect(total).toBe(100);
    const part = (p: number): number => manifest.tasks.filter((t) => t.part === p).reduce((sum, t) => sum + t.points, 0);
    expect([part(1), part(2)]).toEqual([80, 20]);
    expect(manifest.tasks.map((t) => [t.id, t.points])).toContainEqual(["write-cache", 10]);
  });

  it("uses the course's tile sizes, settings and T4 score table", () => {
    expect(manifest.manual.tileSizes).toEqual({ ...solution.MANUAL_TILE_SIZES });
    expect(manifest.numerics).toMatchObject({ sizes: { full: 2048 }, rounds: 5, inputRange: [-1, 1], rtol: 1e-4, atol: 1e-4 });
    expect(manifest.timing).toEqual({ number: 3, repeat: 10, minRepeatMs: 100 });
    expect(manifest.tunedScore?.thresholds["t4"]).toEqual([
      { maxMs: 20, points: 20 },
      { maxMs: 40, points: 15 },
      { maxMs: 80, points: 10 },
      { maxMs: 160, points: 5 },
    ]);
    expect(manifest.calibration?.["t4"]).toEqual({ manualMs: 23.88, naiveMs: 280 });
    expect(resolveSize("tileX/threadTileX", manifest.manual.tileSizes)).toBe(16);
  });

  it("names only functions and files that the student files export", () => {
    for (const task of manifest.tasks) {
      const file = STUDENT_FILES.find((f) => f.file === task.file);
      expect(file, task.id).toBeDefined();
      expect(file!.exports.map((e) => e.name)).toContain(task.function);
      expect(HANDIN_FILES as readonly string[]).toContain(task.file);
    }
  });

  it("rejects inconsistent points, naming the field", () => {
    const bad = withChange((m) => {
      m.tasks[0].checks[0].points = 4;
    });
    expect(() => parseManifest(bad, "m.json")).toThrow(/tasks\[0\]\.points: task "shared-memory-tiling" is worth 20 but its checks add up to 21/);
  });

  it("rejects unknown tile-size names and check kinds, naming the field", () => {
    const badSize = withChange((m) => {
      m.tasks[1].checks[0].factor = "tileX/threadTileZ";
    });
    expect(() => parseManifest(badSize)).toThrow(/tasks\[1\]\.checks\[0\]\.factor: "threadTileZ" is not a tile size/);
    const badKind = withChange((m) => {
      m.tasks[0].checks[0].kind = "tiling";
    });
    expect(() => parseManifest(badKind)).toThrow(ManifestError);
    expect(() => parseManifest(badKind)).toThrow(/tasks\[0\]\.checks\[0\]\.kind/);
  });

  it("rejects a missing section and a bad threshold table", () => {
    const noTiming = withChange((m) => {
      delete m.timing;
    });
    expect(() => parseManifest(noTiming)).toThrow(/timing: /);
    const unordered = withChange((m) => {
      m.tunedScore.thresholds.t4[1].maxMs = 10;
    });
    expect(() => parseManifest(unordered)).toThrow(/tunedScore\.thresholds\.t4\[1\]: rows must have increasing maxMs/);
  });

  it("needs the tunedScore table and calibration only with a tuned-time check", () => {
    const noTable = withChange((m) => {
      delete m.tunedScore;
      delete m.calibration;
    });
    expect(() => parseManifest(noTable)).toThrow(/tasks\[\d+\]\.checks\[\d+\]: a tuned-time check needs the manifest's tunedScore table/);
    const noCalibration = withChange((m) => {
      delete m.calibration;
    });
    expect(() => parseManifest(noCalibration)).toThrow(/tunedScore\.otherGpus\.calibrationGpu: no calibration times for "t4"/);
  });

  it("reports a missing file and invalid JSON clearly", () => {
    const dir = mkdtempSync(join(tmpdir(), "manifest-"));
    expect(() => loadManifest(join(dir, "nope.json"))).toThrow(/cannot read grading manifest .*nope\.json: no such file/);
    writeFileSync(join(dir, "broken.json"), "{ tasks: ");
    expect(() => loadManifest(join(dir, "broken.json"))).toThrow(/broken\.json: not valid JSON/);
  });
});

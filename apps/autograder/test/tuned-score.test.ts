/** Scoring the tuned time: the GPU's own table, or the calibration table scaled by the reference manual time. */
import { beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { scoreTunedTime } from "../src/grade/tuned-score.js";
import { type Manifest, loadManifest } from "../src/manifest/index.js";

let manifest: Manifest;
beforeAll(() => {
  manifest = loadManifest(assignmentBinding("gemm-relu-add").manifestPath);
});

describe("scoreTunedTime", () => {
  it("uses the T4 table unscaled on a T4, row by row", () => {
    const t4 = { name: "Tesla T4", key: "t4", referenceManualMs: undefined };
    expect(scoreTunedTime(19.9, t4, manifest)).toMatchObject({ points: 20, scale: 1 });
    expect(scoreTunedTime(20, t4, manifest).points).toBe(20);
    expect(scoreTunedTime(20.01, t4, manifest).points).toBe(15);
    expect(scoreTunedTime(160, t4, manifest).points).toBe(5);
    expect(scoreTunedTime(160.5, t4, manifest).points).toBe(0);
  });

  it("scales the T4 limits by the reference manual time on another GPU", () => {
    // The handout's example: the manual schedule takes 8 ms, so the 20-point limit is 20·8/23.88.
    const gpu = { name: "NVIDIA H200", key: "h200", referenceManualMs: 8 };
    const s = scoreTunedTime(6.6, gpu, manifest);
    expect(s.scale).toBeCloseTo(8 / 23.88, 12);
    expect(s.rows[0]!.maxMs).toBeCloseTo((20 * 8) / 23.88, 12);
    expect(s.points).toBe(20);
    expect(scoreTunedTime(6.8, gpu, manifest).points).toBe(15);
    expect(s.explanation).toMatch(/NVIDIA H200 has no table of its own: the t4 limits were scaled by 0\.335/);
  });

  it("refuses to scale without the reference time instead of inventing a score", () => {
    expect(() => scoreTunedTime(5, { name: "NVIDIA A100", key: "a100", referenceManualMs: undefined }, manifest)).toThrow(
      /reference manual schedule's time is needed/,
    );
  });
});

/**
 * The tuned schedule's points from its time: the manifest's table for this GPU, or, on a GPU the
 * manifest has no table for, the calibration GPU's table with every limit scaled by how much
 * faster this GPU runs the reference manual schedule (measured in the same run).
 */
import type { Manifest, Threshold } from "../manifest/index.js";

export interface TunedScoring {
  readonly points: number;
  /** The rows the time was scored against (scaled when `scale` ≠ 1). */
  readonly rows: readonly Threshold[];
  /** Factor applied to the calibration GPU's limits (1 on a GPU with its own table). */
  readonly scale: number;
  /** One sentence for the report: which table, and why it was scaled. */
  readonly explanation: string;
}

export function scoreTunedTime(
  ms: number,
  gpu: { readonly name: string; readonly key: string | undefined; readonly referenceManualMs: number | undefined },
  manifest: Manifest,
): TunedScoring {
  const tunedScore = manifest.tunedScore;
  // The schema admits a tuned-time check only with a tunedScore table and its calibration.
  if (tunedScore === undefined || manifest.calibration === undefined) throw new Error("scoreTunedTime: the manifest has no tunedScore table or calibration");
  const own = gpu.key === undefined ? undefined : tunedScore.thresholds[gpu.key];
  if (own !== undefined) {
    return { points: pointsFor(ms, own), rows: own, scale: 1, explanation: `scored with the ${gpu.key} table (this GPU is a ${gpu.name})` };
  }
  const calibrationGpu = tunedScore.otherGpus.calibrationGpu;
  const table = tunedScore.thresholds[calibrationGpu]!;
  const calibration = manifest.calibration[calibrationGpu]!;
  if (gpu.referenceManualMs === undefined || !(gpu.referenceManualMs > 0)) {
    throw new Error("scoreTunedTime: the reference manual schedule's time is needed to scale the thresholds");
  }
  const scale = gpu.referenceManualMs / calibration.manualMs;
  const rows = table.map((row) => ({ maxMs: row.maxMs * scale, points: row.points }));
  return {
    points: pointsFor(ms, rows),
    rows,
    scale,
    explanation:
      `${gpu.name} has no table of its own: the ${calibrationGpu} limits were scaled by ${scale.toPrecision(3)} ` +
      `(the reference manual schedule took ${gpu.referenceManualMs.toFixed(3)} ms here and ${calibration.manualMs} ms on a ${calibrationGpu})`,
  };
}

/** The points of the first row whose limit the time does not exceed; 0 past the last row. */
function pointsFor(ms: number, rows: readonly Threshold[]): number {
  return rows.find((row) => ms <= row.maxMs)?.points ?? 0;
}

/**
 * One fixed-length vector per candidate from its per-store rows (mean and maximum of every column, and
 * the row count), in place of TVM's per-row sum (docs/architecture/meta-schedule-notes.md).
 */
import type { FeatureMatrix } from "../interfaces/feature-extractor.js";

export function candidateVectorLength(featureLength: number): number {
  return 2 * featureLength + 1;
}

export function candidateVector(rows: FeatureMatrix, featureLength: number): Float64Array {
  const out = new Float64Array(candidateVectorLength(featureLength));
  if (rows.length === 0) return out;
  const max = out.subarray(featureLength, 2 * featureLength);
  max.fill(-Infinity);
  for (const row of rows) {
    for (let k = 0; k < featureLength; k++) {
      const v = row[k] ?? 0;
      out[k]! += v;
      if (v > max[k]!) max[k] = v;
    }
  }
  for (let k = 0; k < featureLength; k++) out[k]! /= rows.length;
  out[2 * featureLength] = rows.length;
  return out;
}

/**
 * One fixed-length vector per candidate from its per-store rows: for every column the mean and
 * the maximum over the rows, then the number of rows.
 *
 * TVM's XGBModel instead predicts a value per row and sums them (PackSum), with a custom
 * objective so that the booster learns per-row contributions. A stock random forest has no
 * custom objective, so we regress on a candidate-level vector: the mean keeps the typical row
 * (independent of how many stores a schedule has), the maximum keeps the dominant one (the
 * compute store's trip counts, the largest shared allocation), and the row count tells schedules
 * with extra cache stages apart.
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

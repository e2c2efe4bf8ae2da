/**
 * Drawing an index with probability proportional to its weight (TVM's `MakeMultinomialSampler`).
 * Weights that are not finite or are negative count as 0; when all are 0 the draw is uniform.
 */
import type { RandomEngine } from "@tessera/schedule";

export class WeightedSampler {
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(weights: readonly number[]) {
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    weights.forEach((w, k) => {
      sum += Number.isFinite(w) && w > 0 ? w : 0;
      this.cumulative[k] = sum;
    });
    this.total = sum;
  }

  get size(): number {
    return this.cumulative.length;
  }

  sample(rng: RandomEngine): number {
    const n = this.cumulative.length;
    if (n === 0) throw new RangeError("WeightedSampler: nothing to sample from");
    if (this.total <= 0) return rng.int(0, n);
    const x = rng.uniform() * this.total;
    // First index whose cumulative weight exceeds x (binary search).
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** A uniformly random permutation of 0..n-1 (Fisher–Yates). */
export function randomPermutation(n: number, rng: RandomEngine): number[] {
  const p = Array.from({ length: n }, (_, k) => k);
  for (let k = n - 1; k > 0; k--) {
    const j = rng.int(0, k + 1);
    [p[k], p[j]] = [p[j]!, p[k]!];
  }
  return p;
}

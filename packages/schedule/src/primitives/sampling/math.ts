/**
 * The random draws behind the sampling instructions (TVM's `primitive/sampling.cc`), written over
 * our `RandomEngine`: uniform integers, sampling without replacement, perfect tilings of an extent
 * (prime factorisation + stars and bars per prime power) and categorical draws. Same structure as
 * TVM, not the same bits (TVM draws through libstdc++ distributions).
 */
import type { RandomEngine } from "../../random.js";

/** A uniform integer in [lo, hi); a range of one value consumes no randomness (as TVM). */
export function sampleInt(rng: RandomEngine, lo: number, hi: number): number {
  if (!(lo < hi)) throw new RangeError(`sampleInt: empty range [${lo}, ${hi})`);
  if (lo + 1 === hi) return lo;
  return rng.int(lo, hi);
}

/** `k` distinct integers of [0, n), in draw order (partial Fisher–Yates; special cases k = 1, 2). */
export function sampleWithoutReplacement(rng: RandomEngine, n: number, k: number): number[] {
  if (k === 1) return [sampleInt(rng, 0, n)];
  if (k === 2) {
    const a = sampleInt(rng, 0, n);
    let b = sampleInt(rng, 0, n - 1);
    if (b >= a) b += 1;
    return [a, b];
  }
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = sampleInt(rng, i, n);
    if (i !== j) [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, k);
}

const MAX_PRIME = 65536;
let primeTable: number[] | undefined;

/** The primes below 65536 (sieve, computed once). */
function primes(): number[] {
  if (primeTable !== undefined) return primeTable;
  const composite = new Uint8Array(MAX_PRIME);
  const out: number[] = [];
  for (let x = 2; x < MAX_PRIME; x++) {
    if (composite[x] === 0) {
      out.push(x);
      for (let y = x * x; y < MAX_PRIME; y += x) composite[y] = 1;
    }
  }
  primeTable = out;
  return out;
}

/** Prime factorisation as [prime, exponent] pairs, smallest prime first. */
export function factorize(n: number): Array<[number, number]> {
  const result: Array<[number, number]> = [];
  for (const p of primes()) {
    if (p * p > n) break;
    let e = 0;
    while (n % p === 0) {
      n /= p;
      e++;
    }
    if (e > 0) result.push([p, e]);
  }
  if (n > 1) result.push([n, 1]);
  return result;
}

/** A uniformly random perfect tiling of `extent` into `n` factors (TVM's SamplePerfectTile). */
export function samplePerfectTileFactors(rng: RandomEngine, extent: number, n: number): number[] {
  if (n === 1) return [extent];
  if (extent === 1) return new Array<number>(n).fill(1);
  const result = new Array<number>(n).fill(1);
  for (const [p, e] of factorize(extent)) {
    if (e === 1) {
      // A single prime factor goes to a random slot.
      result[sampleInt(rng, 0, n)]! *= p;
      continue;
    }
    if (n === 2) {
      const x = sampleInt(rng, 0, e + 1);
      result[0]! *= p ** x;
      result[1]! *= p ** (e - x);
      continue;
    }
    // Stars and bars: x_1 + … + x_n = e, x_i >= 0, uniformly — choose n-1 bar positions among e+n-1.
    const bars = sampleWithoutReplacement(rng, e + n - 1, n - 1).sort((a, b) => a - b);
    bars.push(e + n - 1);
    let last = -1;
    for (let i = 0; i < n; i++) {
      const x = bars[i]! - last - 1;
      last = bars[i]!;
      if (x !== 0) result[i]! *= p ** x;
    }
  }
  return result;
}

/** Rejection sampling until the innermost factor is at most `maxInnermostFactor` (-1: no bound). */
export function samplePerfectTileBounded(rng: RandomEngine, extent: number, n: number, maxInnermostFactor: number): number[] {
  if (maxInnermostFactor === -1) return samplePerfectTileFactors(rng, extent, n);
  for (;;) {
    const result = samplePerfectTileFactors(rng, extent, n);
    if (result[n - 1]! <= maxInnermostFactor) return result;
  }
}

/**
 * Makes an old tiling decision perfect for `extent` (TVM's replay repair): from the innermost
 * factor outwards, a factor that does not divide what is left becomes what is left; the outermost
 * factor takes the remainder. A decision that is already perfect is returned unchanged.
 */
export function repairPerfectTile(decision: readonly number[], extent: number): number[] {
  const result = [...decision];
  let len = extent;
  for (let i = result.length - 1; i > 0; i--) {
    if (len % result[i]! !== 0) result[i] = len;
    len /= result[i]!;
  }
  result[0] = len;
  return result;
}

/** An index drawn with probability proportional to `weights` (all finite, >= 0, positive sum). */
export function sampleDiscrete(rng: RandomEngine, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  const u = rng.uniform() * total;
  let acc = 0;
  for (let i = 0; i < weights.length; i++) {
    acc += weights[i]!;
    if (u < acc) return i;
  }
  // Rounding: fall back to the last candidate with a positive weight.
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i;
  return weights.length - 1;
}

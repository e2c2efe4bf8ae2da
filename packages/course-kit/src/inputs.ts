/** Seeded random inputs, the same on every machine, for the assignments' numerics. */

/** n values uniform in [low, high) from `seed` (mulberry32: fast, and the same on every machine). */
export function uniformArray(n: number, seed: number, low: number, high: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  const span = high - low;
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = low + (((t ^ (t >>> 14)) >>> 0) / 4294967296) * span;
  }
  return out;
}

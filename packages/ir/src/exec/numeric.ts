/**
 * Scalar numeric helpers shared by the generated code and the argument generators.
 */

/** Rounds half to even at integer granularity. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Rounds a double to the nearest IEEE half-precision value (ties to even), keeping it as a JS
 * number. Overflow gives ±Infinity; tiny values become half subnormals or ±0.
 */
export function roundToFloat16(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  // 65520 is halfway between the largest half (65504) and 2^16, which rounds to even: infinity.
  if (a >= 65520) return sign * Infinity;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  // Below 2^-14 the spacing of halves stays at that of the subnormals, 2^-24.
  const quantum = 2 ** (Math.max(e, -14) - 10);
  return sign * roundHalfEven(a / quantum) * quantum;
}

/** C's `round`/CUDA's `roundf`: halves round away from zero (JS `Math.round` rounds them up). */
export function roundHalfAwayFromZero(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** mulberry32: a tiny, fast, deterministic 32-bit PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

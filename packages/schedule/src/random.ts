/**
 * The schedule's random engine: TVM's linear congruential generator (state in [1, 2^31 - 2],
 * next = state * 48271 mod (2^31 - 1)), with one difference: the seed is *mixed* before it
 * becomes the state. A raw small seed s gives a first draw of 48271·s / 2^31 ≈ 0, so seeds 0–39
 * (and neighbouring seeds in general) would all start with the same samples. `mixSeed` scrambles
 * the seed with a splitmix/murmur-style finaliser (add the golden-ratio constant, then
 * xor-shift-multiply rounds), so nearby seeds start far apart; a given seed still always gives the
 * same sequence. Consequently our sequences differ from TVM's for the same seed.
 */
const MODULUS = 2147483647;
const MULTIPLIER = 48271;

export class RandomEngine {
  private state: number;

  constructor(seed?: number) {
    this.state = RandomEngine.normalizeSeed(seed ?? Math.floor(Math.random() * (MODULUS - 1)));
  }

  /** The LCG state for a seed: the mixed seed reduced to [1, 2^31 - 2]. */
  static normalizeSeed(seed: number): number {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a (safe) integer, got ${seed}`);
    const s = mixSeed(seed) % MODULUS;
    return s === 0 ? 1 : s;
  }

  seed(seed: number): void {
    this.state = RandomEngine.normalizeSeed(seed);
  }

  /** The next raw value in [1, 2^31 - 2]. */
  next(): number {
    // 48271 * (2^31 - 1) < 2^53, so the product is exact in a double.
    this.state = (this.state * MULTIPLIER) % MODULUS;
    return this.state;
  }

  /** A uniform float in [0, 1). */
  uniform(): number {
    return (this.next() - 1) / (MODULUS - 1);
  }

  /** A uniform integer in [lo, hi). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.uniform() * (hi - lo));
  }

  /** A seed for a child engine (TVM's fork_seed). */
  forkSeed(): number {
    return (this.next() * 32767) % 1999999973;
  }

  clone(): RandomEngine {
    const r = new RandomEngine(1);
    r.state = this.state;
    return r;
  }

  /** Takes `from`'s state (a clone made earlier): the draws go on as `from`'s would. */
  restore(from: RandomEngine): void {
    this.state = from.state;
  }
}

/** murmur3's 32-bit finaliser: every input bit affects every output bit. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A well-spread unsigned 32-bit value for any safe integer seed (negative and > 2^32 included). */
export function mixSeed(seed: number): number {
  const low = seed >>> 0; // seed mod 2^32
  const high = Math.floor(seed / 2 ** 32) >>> 0;
  const mixedLow = fmix32(low + 0x9e3779b9);
  return high === 0 ? mixedLow : fmix32(mixedLow ^ fmix32(high + 0x7f4a7c15));
}

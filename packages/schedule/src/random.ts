/**
 * The schedule's random engine: TVM's linear congruential generator (state in [1, 2^31 - 2],
 * next = state * 48271 mod (2^31 - 1)), so seeds behave as in TVM even though the distributions
 * built on top are our own.
 */
const MODULUS = 2147483647;
const MULTIPLIER = 48271;

export class RandomEngine {
  private state: number;

  constructor(seed?: number) {
    this.state = RandomEngine.normalizeSeed(seed ?? Math.floor(Math.random() * (MODULUS - 1)));
  }

  static normalizeSeed(seed: number): number {
    if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    let s = seed % MODULUS;
    if (s < 0) s += MODULUS;
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
}

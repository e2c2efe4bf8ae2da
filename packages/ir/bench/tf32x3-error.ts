/**
 * The error of three ways to compute a float32 GEMM, against a float64 reference (the analysis
 * behind the 3xTF32 rewrite, docs/architecture/tf32x3.md):
 *   - sgemm:  float32 operands, each product added with one rounding (an FMA chain, as SGEMM's
 *             inner loop; the float64 `a * b + c` then `Math.fround` models the FMA: a float32
 *             product is exact in float64, and the sum is rounded twice, which differs from one
 *             rounding only on rare ties);
 *   - tf32:   both operands rounded to tf32 (`roundToTF32`, the executor's `T.tf32_round`), then
 *             the same chain: one tensor-core MMA per product;
 *   - tf32x3: each operand split as hi = tf32(x), lo = tf32(x - hi); per k the small products
 *             lo·hi' and hi·lo' are added before hi·hi' (three MMAs; lo·lo' is dropped), all into
 *             one accumulator: three roundings of the large sum per k;
 *   - tf32x3-split: the same products, the small ones into an accumulator of their own, added to
 *             the large one at the end: one rounding of the large sum per k, as SGEMM.
 * The chain keeps one float32 accumulator per output in k order, as one thread's accumulator
 * does; a GPU's blocked order changes the rounding pattern but not its size.
 */
import { roundToTF32 } from "@tessera/ir";

export type Method = "sgemm" | "tf32" | "tf32x3" | "tf32x3-split";
export const METHODS: readonly Method[] = ["sgemm", "tf32", "tf32x3", "tf32x3-split"];

export interface GemmProblem {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Row-major m×k. */
  readonly a: Float32Array;
  /** Row-major k×n. */
  readonly b: Float32Array;
}

export interface ErrorStats {
  /** max |C − C64| over all outputs. */
  readonly maxAbs: number;
  /** max |C − C64| / Σ_k |a·b| (the error relative to the magnitude the sum passes through). */
  readonly maxScaled: number;
  /** Root mean square of C − C64. */
  readonly rms: number;
}

const fma32 = (a: number, b: number, c: number): number => Math.fround(a * b + c);

function split(x: number): [number, number] {
  const hi = roundToTF32(x);
  return [hi, roundToTF32(Math.fround(x - hi))];
}

/** One output of the product by `method`: row `i` of A against column `j` of B. */
export function dot(p: GemmProblem, i: number, j: number, method: Method): number {
  let acc = 0;
  let small = 0;
  for (let kk = 0; kk < p.k; kk++) {
    const x = p.a[i * p.k + kk]!;
    const y = p.b[kk * p.n + j]!;
    if (method === "sgemm") acc = fma32(x, y, acc);
    else if (method === "tf32") acc = fma32(roundToTF32(x), roundToTF32(y), acc);
    else {
      const [xh, xl] = split(x);
      const [yh, yl] = split(y);
      if (method === "tf32x3") acc = fma32(xh, yh, fma32(xh, yl, fma32(xl, yh, acc)));
      else {
        small = fma32(xh, yl, fma32(xl, yh, small));
        acc = fma32(xh, yh, acc);
      }
    }
  }
  return method === "tf32x3-split" ? Math.fround(acc + small) : acc;
}

/** Errors of `method` on every output of `p` against the float64 product. */
export function gemmError(p: GemmProblem, method: Method): ErrorStats {
  let maxAbs = 0;
  let maxScaled = 0;
  let squares = 0;
  for (let i = 0; i < p.m; i++) {
    for (let j = 0; j < p.n; j++) {
      let exact = 0;
      let magnitude = 0;
      for (let kk = 0; kk < p.k; kk++) {
        const prod = p.a[i * p.k + kk]! * p.b[kk * p.n + j]!;
        exact += prod;
        magnitude += Math.abs(prod);
      }
      const err = Math.abs(dot(p, i, j, method) - exact);
      maxAbs = Math.max(maxAbs, err);
      maxScaled = Math.max(maxScaled, magnitude === 0 ? 0 : err / magnitude);
      squares += err * err;
    }
  }
  return { maxAbs, maxScaled, rms: Math.sqrt(squares / (p.m * p.n)) };
}

/** A seeded problem with entries uniform in [-1, 1) or standard normal (Box–Muller). */
export function randomProblem(m: number, n: number, k: number, distribution: "uniform" | "normal", seed: number): GemmProblem {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: enough for test data, and the same on every machine.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
  const draw = (): number => (distribution === "uniform" ? 2 * next() - 1 : Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()));
  const fill = (len: number): Float32Array => Float32Array.from({ length: len }, draw);
  return { m, n, k, a: fill(m * k), b: fill(k * n) };
}

/**
 * The error model of the tensor-core GEMMs, on the executor (whose bits the simulated kernels
 * reproduce): against a float64 reference, 3xTF32 summed in chunks of k (a chunk accumulator added
 * into the main one) is as accurate as an SGEMM-style float32 GEMM summing in k order, for short
 * and long chunks alike, where one tf32 product is far off.
 * (In `pnpm test:slow`: about 3 s a seed.)
 */
import { compilePrimFunc, matmul, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { tf32Gemm, tf32x3Gemm } from "../src/index.js";

const N = 128;

/** The max |C − A·B| of `func` (A, B, C) on seeded uniform [-1, 1) inputs, A·B in float64. */
function maxError(func: ReturnType<typeof tf32Gemm>, seed: number): number {
  const args = randomArgs(func, seed, { low: -1, high: 1 }) as Float32Array[];
  compilePrimFunc(func).run(args);
  const [a, b, c] = args as [Float32Array, Float32Array, Float32Array];
  let worst = 0;
  for (let i = 0; i < N; i++)
    for (let j = 0; j < N; j++) {
      let exact = 0;
      for (let k = 0; k < N; k++) exact += a[i * N + k]! * b[k * N + j]!;
      worst = Math.max(worst, Math.abs(c[i * N + j]! - exact));
    }
  return worst;
}

describe("3xTF32 error against float64", () => {
  for (const seed of [1, 2]) {
    it(`is SGEMM's, where one tf32 product is far off (seed ${seed})`, () => {
      const sgemm = maxError(matmul(N, N, N).func, seed);
      const tf32 = maxError(tf32Gemm(N), seed);
      for (const chunk of [8, 16, N]) expect(maxError(tf32x3Gemm(N, chunk), seed), `chunk ${chunk}`).toBeLessThanOrEqual(1.5 * sgemm);
      expect(tf32).toBeGreaterThan(20 * sgemm);
    });
  }
});

/**
 * The 3xTF32 formulation in TIR (T.tf32_round splits each operand into a tf32 high part and a
 * tf32 residual; three products per k, small ones first) runs in the executor exactly as the error
 * analysis of packages/ir/bench/tf32x3-error.ts models it, and that analysis ranks the methods as
 * docs/architecture/tf32x3.md says.
 */
import { describe, expect, it } from "vitest";
import { compilePrimFunc, parsePrimFunc } from "../../src/index.js";
import { dot, gemmError, randomProblem } from "../../bench/tf32x3-error.js";

const M = 4;
const N = 4;
const K = 96;

const TF32X3 = `
@T.prim_func
def gemm_tf32x3(A: T.Buffer((${M}, ${K}), "float32"), B: T.Buffer((${K}, ${N}), "float32"), C: T.Buffer((${M}, ${N}), "float32")):
    for i, j, k in T.grid(${M}, ${N}, ${K}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            a_hi = T.tf32_round(A[vi, vk])
            b_hi = T.tf32_round(B[vk, vj])
            a_lo = T.tf32_round(A[vi, vk] - a_hi)
            b_lo = T.tf32_round(B[vk, vj] - b_hi)
            C[vi, vj] = C[vi, vj] + a_lo * b_hi + a_hi * b_lo + a_hi * b_hi
`;

describe("3xTF32", () => {
  it("the TIR formulation computes what the error analysis models, bit for bit", () => {
    const p = randomProblem(M, N, K, "normal", 5);
    const c = new Float32Array(M * N);
    compilePrimFunc(parsePrimFunc(TF32X3)).run([p.a, p.b, c]);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) expect(c[i * N + j]).toBe(dot(p, i, j, "tf32x3"));
  });

  it("with its small products in an accumulator of their own it is as accurate as float32 FMA accumulation; one tf32 product is hundreds of times worse", () => {
    const p = randomProblem(16, 16, 512, "normal", 9);
    const sgemm = gemmError(p, "sgemm");
    const split = gemmError(p, "tf32x3-split");
    expect(split.rms).toBeLessThan(1.25 * sgemm.rms);
    expect(split.maxAbs).toBeLessThan(1.5 * sgemm.maxAbs);
    // One accumulator rounds the large sum three times per k.
    expect(gemmError(p, "tf32x3").rms).toBeGreaterThan(split.rms);
    expect(gemmError(p, "tf32").rms).toBeGreaterThan(100 * split.rms);
  });
});

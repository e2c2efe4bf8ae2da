/**
 * The requested float32 GEMM precision (`withFp32Precision`): the rewritten functions compute what
 * the hand-scheduled tf32 and 3xTF32 kernels' functions compute (@tessera/corpus, bit for bit in
 * the executor), 3xTF32 is as accurate as float32 against float64 where tf32 is not, "ieee" and
 * functions without a float32 GEMM are left alone, and bad requests are refused by name.
 */
import { halfGemmReluAdd, tf32Gemm, tf32x3Gemm } from "@tessera/corpus";
import {
  type PrimFunc,
  compute,
  createPrimFunc,
  gemmReluAdd,
  matmul,
  mul,
  placeholder,
  printTVMScript,
  randomArgs,
  reduceAxis,
  reduceSum,
  runPrimFunc,
} from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { parseFp32Precision, withFp32Precision } from "../../src/index.js";

const N = 64;

/** The output (last argument) of `func` on seeded random arguments in [-1, 1). */
function outputOf(func: PrimFunc, seed: number): Float32Array {
  const args = randomArgs(func, seed);
  runPrimFunc(func, args);
  return args.at(-1) as Float32Array;
}

describe("withFp32Precision", () => {
  it('"ieee" and a function without a float32 GEMM are returned as they are', () => {
    const f = gemmReluAdd(N).func;
    expect(withFp32Precision(f, "ieee")).toBe(f);
    const half = halfGemmReluAdd(N, "float16").func;
    expect(withFp32Precision(half, "3xtf32")).toBe(half);
  });

  it("tf32: the GEMM reads tf32-rounded stages and computes the corpus tf32 GEMM's bits", () => {
    const f = withFp32Precision(matmul(N, N, N).func, "tf32");
    const script = printTVMScript(f);
    expect(script).toContain("A_tf32[v0, v1] = T.tf32_round(A[v0, v1])");
    expect(script).toContain("B_tf32[v0, v1] = T.tf32_round(B[v0, v1])");
    expect(outputOf(f, 3)).toEqual(outputOf(tf32Gemm(N), 3));
  });

  it("3xtf32: hi/lo stages, the chunked three-product sum, the corpus 3xTF32 GEMM's bits", () => {
    for (const chunk of [16, 32]) {
      const f = withFp32Precision(matmul(N, N, N).func, "3xtf32", { chunk });
      const script = printTVMScript(f);
      expect(script).toContain("A_lo[v0, v1] = T.tf32_round(A[v0, v1] - T.tf32_round(A[v0, v1]))");
      expect(script).toContain('with T.block("C_rf")');
      expect(outputOf(f, 4)).toEqual(outputOf(tf32x3Gemm(N, chunk), 4));
    }
  });

  it("3xtf32 is as accurate as float32 against float64; tf32 is not", () => {
    const n = 128;
    const plain = gemmReluAdd(n).func;
    const args = randomArgs(plain, 11);
    const [A, B, C] = args as Float32Array[];
    const exact = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += A![i * n + k]! * B![k * n + j]!;
        exact[i * n + j] = Math.max(s, 0) + C![i * n + j]!;
      }
    const maxError = (func: PrimFunc) => {
      const run = args.map((a) => a.slice());
      runPrimFunc(func, run);
      const d = run.at(-1) as Float32Array;
      return d.reduce((m, x, k) => Math.max(m, Math.abs(x - exact[k]!)), 0);
    };
    const [ieee, tf32, x3] = [plain, withFp32Precision(plain, "tf32"), withFp32Precision(plain, "3xtf32")].map(maxError);
    expect(x3).toBeLessThanOrEqual(2 * ieee!);
    expect(tf32).toBeGreaterThan(50 * ieee!);
  });

  it("is idempotent: a GEMM of tf32 stages is left alone", () => {
    for (const p of ["tf32", "3xtf32"] as const) {
      const f = withFp32Precision(matmul(N, N, N).func, "tf32");
      expect(withFp32Precision(f, p)).toBe(f);
    }
  });

  it("puts the stages after the block that computes an operand (regression: they went first, reading it unwritten)", () => {
    const X = placeholder([N, N], "float32", "X");
    const B = placeholder([N, N], "float32", "B");
    const A = compute([N, N], (i, k) => mul(X.at(i, k), 2), "A");
    const k = reduceAxis([0, N], "k");
    const C = compute([N, N], (i, j) => reduceSum(mul(A.at(i, k), B.at(k, j)), k), "C");
    const plain = createPrimFunc([X, B, C], { name: "scaled_gemm" });
    const ieee = outputOf(plain, 5);
    const scale = ieee.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    expect(scale).toBeGreaterThan(1);
    for (const p of ["tf32", "3xtf32"] as const) {
      const d = outputOf(withFp32Precision(plain, p), 5);
      expect(d.reduce((m, x, i) => Math.max(m, Math.abs(x - ieee[i]!)), 0)).toBeLessThan(1e-2 * scale);
    }
  });

  it("refuses a chunk that does not divide k, and an unknown precision, by name", () => {
    expect(() => withFp32Precision(matmul(N, N, N).func, "3xtf32", { chunk: 48 })).toThrow(/chunk 48 does not divide the k extent 64 of block "C"/);
    expect(() => parseFp32Precision("fp16")).toThrow(/fp32 precision must be one of ieee, tf32, 3xtf32, got "fp16"/);
    expect(parseFp32Precision("3xtf32")).toBe("3xtf32");
  });
});

/**
 * The workloads `pnpm bench:tune` tunes (issue: gemm+ReLU+add 2048³, matmul 1024³ and 4096³, a
 * batched matmul, the d2l conv2d NCHW 3×3 64→64 at 56×56 with batch 1 and 32; then shapes the
 * tiles need not divide and rectangular ones: matmul 1000³, 2047³, 4096×1024×4096 and a skinny
 * 64×4096×4096; the fp16 matmuls (fp32 accumulation, tensor cores) at 2048³ and 4096³ against
 * torch's fp16 matmul (cuBLAS HGEMM), with a float32 C and, like HGEMM, a float16 one; and issue 34's
 * bonus workload, gemm+ReLU+add in fp16 at 2048³, against HGEMM's A·B alone, and in 3xTF32
 * against SGEMM's; a tf32 matmul at 4096³ against cuBLAS with TF32 on), each with the PyTorch
 * computation it is compared with (cuBLAS / cuDNN, TF32 off unless said).
 * Matmul shapes read M×N×K: A is M×K, B is K×N.
 */
import { halfGemmReluAdd, halfOutputGemm, mmaGemm } from "@tessera/corpus";
import { type PrimFunc, batchMatmul, conv2d, gemmReluAdd, matmul } from "@tessera/ir";
import { withFp32Precision } from "../src/index.js";

export interface BenchWorkload {
  readonly name: string;
  readonly func: () => PrimFunc;
  /** Floating-point operations of one run (2 per multiply-add). */
  readonly flop: number;
  /** The torch baseline, as a key of TORCH_BASELINES in torch-baselines.ts, with its arguments. */
  readonly torch: TorchBaselineSpec;
  /**
   * A float32 gemm+ReLU+add that must be as accurate as SGEMM: on a GPU its best program is run
   * once more and its max |error| against float64 reported beside SGEMM's (float64-error.ts).
   */
  readonly float64Check?: boolean;
}

export type TorchBaselineSpec =
  | { readonly op: "gemm_relu_add"; readonly n: number }
  /** gemm+ReLU+add in fp16 (float32 products and sums): torch's fp16 `relu(A @ B) + C`, and HGEMM's `A @ B` alone (the ratio's denominator). */
  | { readonly op: "gemm_relu_add_fp16"; readonly n: number }
  | { readonly op: "matmul"; readonly m: number; readonly n: number; readonly k: number }
  /** A square float32 matmul with TF32 on: cuBLAS's tf32 GEMM (the tf32 workload's computation). */
  | { readonly op: "matmul_tf32"; readonly n: number }
  /** `output`: the C the workload writes, float32 when absent (HGEMM, the baseline, writes float16). */
  | { readonly op: "matmul_fp16"; readonly n: number; readonly output?: "float16" }
  | { readonly op: "batch_matmul"; readonly batch: number; readonly n: number }
  | { readonly op: "conv2d"; readonly batch: number; readonly channels: number; readonly size: number; readonly kernel: number };

const CONV = { channels: 64, size: 56, kernel: 3 } as const;

function convWorkload(batch: number): BenchWorkload {
  return {
    name: `conv2d_nchw_b${batch}`,
    func: () =>
      conv2d({ batch, inChannels: CONV.channels, outChannels: CONV.channels, height: CONV.size, width: CONV.size, kernel: CONV.kernel, padding: 1 }).func,
    flop: 2 * batch * CONV.channels * CONV.size * CONV.size * CONV.channels * CONV.kernel * CONV.kernel,
    torch: { op: "conv2d", batch, ...CONV },
  };
}

/** C = A·B with A: m×k, B: k×n (the operator library's `matmul(n, m, l)` names them C's rows, C's columns, k). */
function matmulWorkload(name: string, m: number, n: number, k: number): BenchWorkload {
  return { name, func: () => matmul(m, n, k).func, flop: 2 * m * n * k, torch: { op: "matmul", m, n, k } };
}

/** C = A·B with float16 A, B and a float32 C (products and sums in float32, as tensor cores compute them). */
function halfMatmulWorkload(n: number): BenchWorkload {
  return { name: `matmul_fp16_${n}`, func: () => mmaGemm(n), flop: 2 * n ** 3, torch: { op: "matmul_fp16", n } };
}

/** Issue 34's bonus workload: D = half(max(A·B, 0)) + C with float16 A, B, C and D, A·B in float32 (tensor cores). */
function halfGemmReluAddWorkload(n: number): BenchWorkload {
  return { name: `gemm_relu_add_fp16_${n}`, func: () => halfGemmReluAdd(n, "float16").func, flop: 2 * n ** 3, torch: { op: "gemm_relu_add_fp16", n } };
}

/**
 * Issue 34's bonus workload in 3xTF32: the course's float32 gemm+ReLU+add with the 3xTF32 precision
 * requested (`withFp32Precision`: hi/lo tf32 splits, k in chunks of 32), against cuBLAS SGEMM's
 * `A @ B` alone (TF32 off), torch's float32 `relu(A @ B) + C` beside it.
 */
function tf32x3GemmReluAddWorkload(n: number): BenchWorkload {
  return {
    name: `gemm_relu_add_3xtf32_${n}`,
    func: () => withFp32Precision(gemmReluAdd(n).func, "3xtf32"),
    flop: 2 * n ** 3,
    torch: { op: "gemm_relu_add", n },
    float64Check: true,
  };
}

/** C = A·B in tf32 (`withFp32Precision(…, "tf32")`: operands rounded to tf32, float32 sums), against cuBLAS with TF32 on. */
function tf32MatmulWorkload(n: number): BenchWorkload {
  return { name: `matmul_tf32_${n}`, func: () => withFp32Precision(matmul(n, n, n).func, "tf32"), flop: 2 * n ** 3, torch: { op: "matmul_tf32", n } };
}

/** C = A·B with float16 A, B and C, float32 products and sums rounded once at the store: cuBLAS HGEMM's computation. */
function halfOutputMatmulWorkload(n: number): BenchWorkload {
  return { name: `matmul_fp16_out_${n}`, func: () => halfOutputGemm(n), flop: 2 * n ** 3, torch: { op: "matmul_fp16", n, output: "float16" } };
}

export const BENCH_WORKLOADS: readonly BenchWorkload[] = [
  { name: "gemm_relu_add_2048", func: () => gemmReluAdd(2048).func, flop: 2 * 2048 ** 3, torch: { op: "gemm_relu_add", n: 2048 } },
  matmulWorkload("matmul_1024", 1024, 1024, 1024),
  matmulWorkload("matmul_4096", 4096, 4096, 4096),
  { name: "batch_matmul_16x512", func: () => batchMatmul(16, 512, 512, 512).func, flop: 2 * 16 * 512 ** 3, torch: { op: "batch_matmul", batch: 16, n: 512 } },
  convWorkload(1),
  convWorkload(32),
  matmulWorkload("matmul_1000", 1000, 1000, 1000),
  matmulWorkload("matmul_2047", 2047, 2047, 2047),
  matmulWorkload("matmul_4096x1024x4096", 4096, 1024, 4096),
  matmulWorkload("matmul_skinny_64x4096x4096", 64, 4096, 4096),
  halfMatmulWorkload(2048),
  halfMatmulWorkload(4096),
  halfOutputMatmulWorkload(2048),
  halfOutputMatmulWorkload(4096),
  halfGemmReluAddWorkload(2048),
  tf32x3GemmReluAddWorkload(2048),
  tf32MatmulWorkload(4096),
];

export function benchWorkload(name: string): BenchWorkload {
  const w = BENCH_WORKLOADS.find((x) => x.name === name);
  if (w === undefined) throw new RangeError(`unknown workload "${name}"; known: ${BENCH_WORKLOADS.map((x) => x.name).join(", ")}`);
  return w;
}

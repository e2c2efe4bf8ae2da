/**
 * gemm+ReLU+add with 16-bit operands and float32 accumulation, the shape of a tensor-core GEMM:
 * `D = half(ReLU(float(A)·float(B))) + C`, where A, B, C and D are float16 or bfloat16, the
 * products and the sum are float32, and the final add is 16-bit arithmetic (rounded per element).
 * Written in TE with gemmReluAdd's block names ("gemm", "relu", "add"), so the manual schedule
 * applies unchanged; the output buffer is named after its block, "add".
 */
import { type PrimFunc, add, cast, compute, createPrimFunc, floatImm, max, mul, placeholder, reduceAxis, reduceSum } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { type ManualScheduleParams, manualScheduleOf } from "./gemm-relu-add.js";

export type HalfGemmDType = "float16" | "bfloat16";

export function halfGemmReluAdd(n: number, dtype: HalfGemmDType): { func: PrimFunc } {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`halfGemmReluAdd: n must be a positive integer, got ${n}`);
  const A = placeholder([n, n], dtype, "A");
  const B = placeholder([n, n], dtype, "B");
  const C = placeholder([n, n], dtype, "C");
  const k = reduceAxis([0, n], "k");
  const gemm = compute([n, n], (i, j) => reduceSum(mul(cast("float32", A.at(i, k)), cast("float32", B.at(k, j))), k), "gemm");
  const relu = compute([n, n], (i, j) => cast(dtype, max(gemm.at(i, j), floatImm(0, "float32"))), "relu");
  const D = compute([n, n], (i, j) => add(relu.at(i, j), C.at(i, j)), "add");
  return { func: createPrimFunc([A, B, C, D], { name: `gemm_relu_add_${dtype}` }) };
}

/** The manual (SIMT) schedule of the 16-bit workload: shared and register tiles, float32 accumulators. */
export function halfGemmManualSchedule(n: number, dtype: HalfGemmDType, params?: ManualScheduleParams): Schedule {
  return manualScheduleOf(halfGemmReluAdd(n, dtype).func, n, params);
}

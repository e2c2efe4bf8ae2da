/**
 * gemm+ReLU+add with 16-bit operands and float32 accumulation, the shape of a tensor-core GEMM:
 * `D = half(ReLU(float(A)·float(B))) + C`, where A, B, C and D are float16 or bfloat16, the
 * products and the sum are float32, and the final add is 16-bit arithmetic (rounded per element).
 * The blocks are named as in gemmReluAdd, so the manual schedule applies unchanged.
 */
import { type PrimFunc, add, buildPrimFunc, cast, floatImm, max, mul } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { type ManualScheduleParams, manualScheduleOf } from "./gemm-relu-add.js";

export type HalfGemmDType = "float16" | "bfloat16";

export function halfGemmReluAdd(n: number, dtype: HalfGemmDType): { func: PrimFunc } {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`halfGemmReluAdd: n must be a positive integer, got ${n}`);
  const func = buildPrimFunc(`gemm_relu_add_${dtype}`, ({ param, allocBuffer, grid, block, axis, init, store, load }) => {
    const A = param("A", [n, n], dtype);
    const B = param("B", [n, n], dtype);
    const C = param("C", [n, n], dtype);
    const D = param("D", [n, n], dtype);
    const matmul = allocBuffer("matmul", [n, n], "float32", "global");
    const relu = allocBuffer("relu", [n, n], dtype, "global");
    grid([n, n, n], (i, j, k) => {
      block("gemm", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        const vk = axis.reduce(n, k);
        init(() => store(matmul, [vi, vj], floatImm(0, "float32")));
        const product = mul(cast("float32", load(A, [vi, vk])), cast("float32", load(B, [vk, vj])));
        store(matmul, [vi, vj], add(load(matmul, [vi, vj]), product));
      });
    });
    grid([n, n], (i, j) => {
      block("relu", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        store(relu, [vi, vj], cast(dtype, max(load(matmul, [vi, vj]), floatImm(0, "float32"))));
      });
    });
    grid([n, n], (i, j) => {
      block("add", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        store(D, [vi, vj], add(load(relu, [vi, vj]), load(C, [vi, vj])));
      });
    });
  });
  return { func };
}

/** The manual (SIMT) schedule of the 16-bit workload: shared and register tiles, float32 accumulators. */
export function halfGemmManualSchedule(n: number, dtype: HalfGemmDType, params?: ManualScheduleParams): Schedule {
  return manualScheduleOf(halfGemmReluAdd(n, dtype).func, n, params);
}

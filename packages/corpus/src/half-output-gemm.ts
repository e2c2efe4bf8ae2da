/**
 * The fp16 GEMM as cuBLAS HGEMM computes it: `D = half(A·B)` with float16 A, B and D, the products
 * and sums in float32 (block "C", an intermediate) and one rounding to float16 per element (block
 * "D", a cast; TVM's tensor-core GEMMs write `T.Cast("float16", acc)` at the store). The tensor-core
 * design space fuses the cast into the accumulator's store (MultiLevelTilingTensorCore).
 */
import { type PrimFunc, cast, compute, createPrimFunc, mul, placeholder, reduceAxis, reduceSum } from "@tessera/ir";

export function halfOutputGemm(n: number): PrimFunc {
  if (!Number.isInteger(n) || n < 16 || n % 16 !== 0) throw new RangeError(`halfOutputGemm: n must be a positive multiple of 16, got ${n}`);
  const A = placeholder([n, n], "float16", "A");
  const B = placeholder([n, n], "float16", "B");
  const k = reduceAxis([0, n], "k");
  const C = compute([n, n], (i, j) => reduceSum(mul(cast("float32", A.at(i, k)), cast("float32", B.at(k, j))), k), "C");
  const D = compute([n, n], (i, j) => cast("float16", C.at(i, j)), "D");
  return createPrimFunc([A, B, D], { name: "half_output_gemm" });
}

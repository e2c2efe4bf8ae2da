/** Matrix multiplication, as in the d2l book's `matmul(n, m, l)`, and its batched form. */
import { mul } from "../expr.js";
import { compute } from "../te/compute.js";
import { createPrimFunc } from "../te/create-prim-func.js";
import { reduceAxis, reduceSum } from "../te/reduce.js";
import { placeholder } from "../te/tensor.js";
import { type FloatDType, type OperatorBuild, checkExtent, checkFloatDType } from "./common.js";

/** `C[i, j] = Σ_k A[i, k] · B[k, j]` with A: n×l, B: l×m, C: n×m. */
export function matmul(n: number, m: number, l: number, dtype: FloatDType = "float32"): OperatorBuild {
  checkExtent(n, "n", "matmul");
  checkExtent(m, "m", "matmul");
  checkExtent(l, "l", "matmul");
  checkFloatDType(dtype, "matmul");
  const A = placeholder([n, l], dtype, "A");
  const B = placeholder([l, m], dtype, "B");
  const k = reduceAxis([0, l], "k");
  const C = compute([n, m], (i, j) => reduceSum(mul(A.at(i, k), B.at(k, j)), k), "C");
  return { func: createPrimFunc([A, B, C], { name: "matmul" }), inputs: [A, B], output: C };
}

/** `C[b, i, j] = Σ_k A[b, i, k] · B[b, k, j]` with A: batch×n×l, B: batch×l×m, C: batch×n×m. */
export function batchMatmul(batch: number, n: number, m: number, l: number, dtype: FloatDType = "float32"): OperatorBuild {
  checkExtent(batch, "batch", "batchMatmul");
  checkExtent(n, "n", "batchMatmul");
  checkExtent(m, "m", "batchMatmul");
  checkExtent(l, "l", "batchMatmul");
  checkFloatDType(dtype, "batchMatmul");
  const A = placeholder([batch, n, l], dtype, "A");
  const B = placeholder([batch, l, m], dtype, "B");
  const k = reduceAxis([0, l], "k");
  const C = compute([batch, n, m], (b, i, j) => reduceSum(mul(A.at(b, i, k), B.at(b, k, j)), k), "C");
  return { func: createPrimFunc([A, B, C], { name: "batch_matmul" }), inputs: [A, B], output: C };
}

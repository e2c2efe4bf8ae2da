/**
 * The course workload `D = ReLU(A·B) + C` (assignment 2, part 1), written with the builder
 * rather than TE so that every name matches the notebook's TVMScript exactly: loops `i, j, k`,
 * block iterators `vi, vj, vk`, blocks "gemm"/"relu"/"add", intermediates `matmul` and `relu`.
 * (TE would name the iterators `v_i`, … and add `tir.noalias`.)
 */
import { add, floatImm, max, mul } from "../expr.js";
import type { PrimFunc } from "../func.js";
import { buildPrimFunc } from "../builder/prim-func-builder.js";
import { checkExtent } from "./common.js";

export function gemmReluAdd(M = 2048, N = M, K = M): { func: PrimFunc } {
  checkExtent(M, "M", "gemmReluAdd");
  checkExtent(N, "N", "gemmReluAdd");
  checkExtent(K, "K", "gemmReluAdd");
  const func = buildPrimFunc("gemm_relu_add", ({ param, allocBuffer, grid, block, axis, init, store, load }) => {
    const A = param("A", [M, K], "float32");
    const B = param("B", [K, N], "float32");
    const C = param("C", [M, N], "float32");
    const D = param("D", [M, N], "float32");
    const matmul = allocBuffer("matmul", [M, N], "float32", "global");
    const relu = allocBuffer("relu", [M, N], "float32", "global");
    grid([M, N, K], (i, j, k) => {
      block("gemm", () => {
        const vi = axis.spatial(M, i);
        const vj = axis.spatial(N, j);
        const vk = axis.reduce(K, k);
        init(() => store(matmul, [vi, vj], floatImm(0, "float32")));
        store(matmul, [vi, vj], add(load(matmul, [vi, vj]), mul(load(A, [vi, vk]), load(B, [vk, vj]))));
      });
    });
    grid([M, N], (i, j) => {
      block("relu", () => {
        const vi = axis.spatial(M, i);
        const vj = axis.spatial(N, j);
        store(relu, [vi, vj], max(load(matmul, [vi, vj]), floatImm(0, "float32")));
      });
    });
    grid([M, N], (i, j) => {
      block("add", () => {
        const vi = axis.spatial(M, i);
        const vj = axis.spatial(N, j);
        store(D, [vi, vj], add(load(relu, [vi, vj]), load(C, [vi, vj])));
      });
    });
  });
  return { func };
}

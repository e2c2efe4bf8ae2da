/**
 * A deliberately faulting assignment for the GPU fault-isolation checks: the graded workload with
 * one read shifted far out of bounds (`C[vi, vj + OFFSET]` in block "add"). Every loop and block
 * keeps its name, so a student's trace replays onto it unchanged and the scheduled kernel reads
 * 4 GiB past the end of C: an illegal address on a GPU, an out-of-bounds load in the simulator.
 * Only the workload differs from the real binding (solution, manifest and files are the same).
 */
import { add, buildPrimFunc, floatImm, max, mul, type PrimFunc } from "@tessera/ir";
import { type AssignmentBinding, DEFAULT_ASSIGNMENT, assignmentBinding } from "../../src/assignment.js";

/** Elements past C's row: 2³⁰ float32 = 4 GiB, far from any other allocation, still an int32 index. */
export const OUT_OF_BOUNDS_OFFSET = 2 ** 30;

export function outOfBoundsWorkload(n: number): PrimFunc {
  return buildPrimFunc("gemm_relu_add", ({ param, allocBuffer, grid, block, axis, init, store, load }) => {
    const A = param("A", [n, n], "float32");
    const B = param("B", [n, n], "float32");
    const C = param("C", [n, n], "float32");
    const D = param("D", [n, n], "float32");
    const matmul = allocBuffer("matmul", [n, n], "float32", "global");
    const relu = allocBuffer("relu", [n, n], "float32", "global");
    grid([n, n, n], (i, j, k) => {
      block("gemm", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        const vk = axis.reduce(n, k);
        init(() => store(matmul, [vi, vj], floatImm(0, "float32")));
        store(matmul, [vi, vj], add(load(matmul, [vi, vj]), mul(load(A, [vi, vk]), load(B, [vk, vj]))));
      });
    });
    grid([n, n], (i, j) => {
      block("relu", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        store(relu, [vi, vj], max(load(matmul, [vi, vj]), floatImm(0, "float32")));
      });
    });
    grid([n, n], (i, j) => {
      block("add", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        store(D, [vi, vj], add(load(relu, [vi, vj]), load(C, [vi, add(vj, OUT_OF_BOUNDS_OFFSET)])));
      });
    });
  });
}

/** The course's binding with the out-of-bounds workload. */
export function outOfBoundsBinding(): AssignmentBinding {
  const real = assignmentBinding(DEFAULT_ASSIGNMENT);
  return { ...real, workload: outOfBoundsWorkload };
}

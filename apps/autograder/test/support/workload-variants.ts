/**
 * Deliberately broken variants of the graded workload for the GPU fault-isolation checks. Every
 * loop and block keeps its name, so a student's trace replays onto a variant unchanged:
 *   - out of bounds: block "add" reads `C[vi, vj + OFFSET]`, 4 GiB past the end of C (an illegal
 *     address on a GPU, an out-of-bounds load in the simulator);
 *   - without ReLU: D = A·B + C, wrong wherever A·B < 0, but every access in bounds.
 * Only the workload differs from the real binding (solution, manifest and files are the same).
 */
import { add, buildPrimFunc, floatImm, max, mul, type PrimFunc } from "@tessera/ir";
import { type AssignmentBinding, DEFAULT_ASSIGNMENT, assignmentBinding } from "../../src/assignment.js";

/** Elements past C's row: 2³⁰ float32 = 4 GiB, far from any other allocation, still an int32 index. */
export const OUT_OF_BOUNDS_OFFSET = 2 ** 30;

export interface WorkloadVariant {
  /** Added to the column index of C's read (0: in bounds). */
  readonly cColumnOffset?: number;
  /** Whether block "relu" applies max(·, 0) (default true). */
  readonly relu?: boolean;
}

export function gemmReluAddVariant(n: number, variant: WorkloadVariant): PrimFunc {
  const offset = variant.cColumnOffset ?? 0;
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
        store(relu, [vi, vj], variant.relu === false ? load(matmul, [vi, vj]) : max(load(matmul, [vi, vj]), floatImm(0, "float32")));
      });
    });
    grid([n, n], (i, j) => {
      block("add", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        store(D, [vi, vj], add(load(relu, [vi, vj]), load(C, [vi, offset === 0 ? vj : add(vj, offset)])));
      });
    });
  });
}

export function outOfBoundsWorkload(n: number): PrimFunc {
  return gemmReluAddVariant(n, { cColumnOffset: OUT_OF_BOUNDS_OFFSET });
}

/** The course's binding with the workload `variant`. */
export function variantBinding(variant: WorkloadVariant): AssignmentBinding {
  const real = assignmentBinding(DEFAULT_ASSIGNMENT);
  return { ...real, workload: (n) => gemmReluAddVariant(n, variant) };
}

/** The course's binding with the out-of-bounds workload. */
export function outOfBoundsBinding(): AssignmentBinding {
  return variantBinding({ cColumnOffset: OUT_OF_BOUNDS_OFFSET });
}

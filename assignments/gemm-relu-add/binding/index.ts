/**
 * The assignment as the autograder sees it (`@tessera/assignment-gemm-relu-add/binding`): the
 * workload D = ReLU(A·B) + C, its inputs and float64 references, and the trusted solution. The
 * handout's grader is built with `../solution/index.js` replaced by the starter's course-provided
 * functions, so this module must reach the solution through that import only.
 */
import { GEMM_RELU_ADD_F64_CUDA, GEMM_RELU_ADD_F64_KERNEL, gemmReluAddReferenceOnHost } from "@tessera/corpus";
import { type AssignmentBinding, type WorkloadNumerics, moduleFunction, uniformArray } from "@tessera/course-kit";
import type { Schedule } from "@tessera/schedule";
import * as solution from "../solution/index.js";
import { ASSIGNMENT_NAME } from "../src/metadata.js";
import { assignmentRoot, manifestPath } from "../src/paths.js";
import { gemmReluAddReferenceAt } from "./reference-at.js";

type Operands = readonly [Float32Array, Float32Array, Float32Array];

function operands(inputs: readonly Float32Array[]): Operands {
  const [A, B, C] = inputs;
  if (A === undefined || B === undefined || C === undefined || inputs.length !== 3)
    throw new Error(`gemm_relu_add takes the inputs A, B, C, not ${inputs.length} arrays`);
  return [A, B, C];
}

/** The inputs A, B, C of D = ReLU(A·B) + C (n×n each) for one round. */
export function gemmReluAddInputs(n: number, seed: number, range: readonly [number, number]): [Float32Array, Float32Array, Float32Array] {
  const [low, high] = range;
  return [uniformArray(n * n, seed * 3 + 1, low, high), uniformArray(n * n, seed * 3 + 2, low, high), uniformArray(n * n, seed * 3 + 3, low, high)];
}

const numerics: WorkloadNumerics = {
  workload: "gemm_relu_add",
  formula: "D = ReLU(A·B) + C",
  inputNames: ["A", "B", "C"],
  output: "D",
  inputs: gemmReluAddInputs,
  reference: (inputs, n) => gemmReluAddReferenceOnHost(...operands(inputs), n),
  referenceAt: (inputs, n, indices) => gemmReluAddReferenceAt(...operands(inputs), n, indices),
  gpuReference: { source: GEMM_RELU_ADD_F64_CUDA, kernel: GEMM_RELU_ADD_F64_KERNEL },
};

export const binding: AssignmentBinding = {
  name: ASSIGNMENT_NAME,
  root: assignmentRoot(),
  manifestPath: manifestPath(),
  defaultFile: "gemm_relu_add.ts",
  workload: (size) => solution.workload(size),
  numerics,
  solution: (name) => moduleFunction(solution, name),
  referenceManual: (size) => {
    const manual = moduleFunction(solution, "manualSchedule") as ((size: number) => Schedule) | undefined;
    return manual?.(size);
  },
};

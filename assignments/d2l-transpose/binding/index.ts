/**
 * The assignment as the autograder sees it (`@tessera/assignment-d2l-transpose/binding`): the
 * workload Y = Xᵀ, its inputs and float64 references, and the trusted solution. A handout's grader
 * is built with `../solution/index.js` replaced by ./handout-solution.ts.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type AssignmentBinding, type WorkloadNumerics, moduleFunction, uniformArray } from "@tessera/course-kit";
import * as solution from "../solution/index.js";
import { TRANSPOSE_F64_CUDA, TRANSPOSE_F64_KERNEL, transposeReference, transposeReferenceAt } from "./reference.js";

export const ASSIGNMENT_NAME = "d2l-transpose";

/** The assignment folder (the parent of binding/). */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function onlyInput(inputs: readonly Float32Array[]): Float32Array {
  const [X] = inputs;
  if (X === undefined || inputs.length !== 1) throw new Error(`transpose takes the one input X, not ${inputs.length} arrays`);
  return X;
}

const numerics: WorkloadNumerics = {
  workload: "transpose",
  formula: "Y = Xᵀ",
  inputNames: ["X"],
  output: "Y",
  inputs: (n, seed, [low, high]) => [uniformArray(n * n, seed * 3 + 1, low, high)],
  reference: (inputs, n) => transposeReference(onlyInput(inputs), n),
  referenceAt: (inputs, n, indices) => transposeReferenceAt(onlyInput(inputs), n, indices),
  gpuReference: { source: TRANSPOSE_F64_CUDA, kernel: TRANSPOSE_F64_KERNEL },
};

export const binding: AssignmentBinding = {
  name: ASSIGNMENT_NAME,
  root: ROOT,
  manifestPath: join(ROOT, "grading", "manifest.json"),
  defaultFile: "transpose.ts",
  workload: (size) => solution.workload(size),
  numerics,
  solution: (name) => moduleFunction(solution, name),
  // No reference manual schedule: the assignment has no timed part.
  referenceManual: () => undefined,
};

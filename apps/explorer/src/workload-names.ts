/** The workloads the page offers, by name and label (the worker builds them: workloads.ts). */
import type { WorkloadName } from "./protocol.js";

export const WORKLOAD_LABELS: Readonly<Record<WorkloadName, string>> = {
  "gemm-relu-add": "D = ReLU(A·B) + C, 256³ (assignment)",
  "vector-add": "d2l vector add, n = 4096",
  matmul: "d2l matmul, 256³",
  transpose: "d2l transpose, 256 × 256",
};

export function isWorkloadName(name: string): name is WorkloadName {
  return Object.hasOwn(WORKLOAD_LABELS, name);
}

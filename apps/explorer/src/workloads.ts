/** The unscheduled functions the explorer offers: the assignment's workload and d2l operators. */
import { type PrimFunc, gemmReluAdd, ops } from "@tessera/ir";
import type { WorkloadName } from "./protocol.js";

/** M = N = K of the assignment's workload in the explorer (the course grades 2048³; 256³ simulates in seconds). */
export const EXPLORER_SIZE = 256;

export const WORKLOADS: Readonly<Record<WorkloadName, () => PrimFunc>> = {
  "gemm-relu-add": () => gemmReluAdd(EXPLORER_SIZE).func,
  "vector-add": () => ops.vectorAdd(4096).func,
  matmul: () => ops.matmul(EXPLORER_SIZE, EXPLORER_SIZE, EXPLORER_SIZE).func,
  transpose: () => ops.transpose([EXPLORER_SIZE, EXPLORER_SIZE], [1, 0]).func,
};

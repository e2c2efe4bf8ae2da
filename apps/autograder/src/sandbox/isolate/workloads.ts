/** Workloads a job can start from, by name (the manifest names one). */
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";

const WORKLOADS: Readonly<Record<string, (size: number) => PrimFunc>> = {
  gemm_relu_add: (size) => gemmReluAdd(size).func,
};

export function workloadFunction(name: string, size: number): PrimFunc {
  const make = WORKLOADS[name];
  if (make === undefined) throw new Error(`unknown workload "${name}" (known: ${Object.keys(WORKLOADS).join(", ")})`);
  return make(size);
}

export const WORKLOAD_NAMES: readonly string[] = Object.keys(WORKLOADS);

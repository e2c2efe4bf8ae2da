/**
 * Puts the simulator's bank-conflict model next to Nsight Compute. Writes a standalone CUDA
 * program that launches the kernels of the course's manual schedule (as lowered, and with its B
 * fetch vectorized, which is the instruction mix nvcc makes of it) once each on zeroed buffers,
 * the ncu command that reads the shared-memory counters of every launch, and the simulator's
 * tables for the same kernels (simulated at min(n, 256)³: the schedule's tiles are fixed, so each
 * count grows with n³). Run on a GPU machine: `nvcc -O3 -arch=sm_90 -o banks banks.cu`, then the
 * printed ncu command.
 * Run: npx tsx --conditions=@tessera/source packages/simulator/bench/bank-conflicts-ncu.ts [n] [out-dir]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LoweredModule, codegenCuda, lower } from "@tessera/codegen";
import { manualSchedule } from "@tessera/corpus";
import { constantSize, dtypeInfo, randomArgs } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { formatBankConflicts, simulate } from "../src/index.js";

const n = Number(process.argv[2] ?? 256);
const outDir = process.argv[3] ?? "bank-conflicts-ncu";

const NCU_METRICS = [
  "smsp__sass_inst_executed_op_shared_ld.sum",
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
  "smsp__sass_inst_executed_op_shared_st.sum",
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
];

function vectorizeBFetch(sch: Schedule): Schedule {
  const loops = sch.getLoops(sch.getBlock("B_shared_local"));
  sch.vectorize(loops[loops.length - 1]!);
  return sch;
}

const simulatedN = Math.min(n, 256);
const cases = (size: number): { name: string; module: LoweredModule }[] => [
  { name: `manual_${size}`, module: lower(manualSchedule(size).func, "nvidia/tesla-t4") },
  { name: `manual_${size}_float4_b`, module: lower(vectorizeBFetch(manualSchedule(size)).func, "nvidia/tesla-t4") },
];

/** The kernels of `module` renamed `name_k`, and host code launching each once on zeroed buffers. */
function standalone(name: string, module: LoweredModule): { kernels: string; launches: string[] } {
  let kernels = "";
  const launches: string[] = [];
  module.kernels.forEach((kernel, k) => {
    const renamed = `${name}_${k}`;
    kernels += codegenCuda({ ...module, kernels: [kernel] }).source.replace(` ${kernel.name}(`, ` ${renamed}(`) + "\n";
    const buffers = kernel.params.map((p, i) => {
      if (p.kind !== "buffer") throw new Error(`${renamed}: scalar parameter ${p.name} is not supported here`);
      const bytes = Math.ceil((constantSize(p.buffer)! * dtypeInfo(p.buffer.dtype).bits) / 8);
      launches.push(`  void* ${renamed}_${i}; cudaMalloc(&${renamed}_${i}, ${bytes}); cudaMemset(${renamed}_${i}, 0, ${bytes});`);
      return `&${renamed}_${i}`;
    });
    const { grid, block } = kernel.launch;
    // cudaLaunchKernel takes the arguments' addresses, so the pointers need no casts to the parameter types.
    launches.push(
      `  { void* args[] = {${buffers.join(", ")}}; cudaLaunchKernel((const void*)${renamed}, dim3(${grid.join(", ")}), dim3(${block.join(", ")}), args, 0, 0); }`,
    );
  });
  return { kernels, launches };
}

const parts = cases(n).map((c) => standalone(c.name, c.module));
const program = [
  "#include <cstdio>",
  "#include <cuda_runtime.h>",
  ...parts.map((p) => p.kernels),
  "int main() {",
  ...parts.flatMap((p) => p.launches),
  "  cudaError_t err = cudaDeviceSynchronize();",
  '  printf("%s\\n", cudaGetErrorString(err));',
  "  return err != cudaSuccess;",
  "}",
  "",
].join("\n");
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "banks.cu"), program);
console.log(`wrote ${join(outDir, "banks.cu")}; profile with:\n  ncu --csv --metrics ${NCU_METRICS.join(",")} ./banks\n`);
if (simulatedN !== n) console.log(`simulated at ${simulatedN}³: multiply every count by ${(n / simulatedN) ** 3} for ${n}³\n`);
for (const c of cases(simulatedN)) {
  const report = simulate(c.module, randomArgs(c.module.source, 0), { detectRaces: false, bankConflicts: true });
  console.log(`${c.name}:\n${formatBankConflicts(report.bankConflicts!)}`);
}

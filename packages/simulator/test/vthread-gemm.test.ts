/**
 * A MetaSchedule-style GEMM (SSSRRSRS: blockIdx / vthread / threadIdx loops outside the k loop)
 * lowered for the H100 and simulated: injectVirtualThread must keep the k loop, the cooperative
 * shared-memory fetch and the barriers once and copy only the register-tile update per virtual
 * thread, with the accumulator sliced per virtual thread.
 */
import { type DeviceKernel, codegenCuda, lower } from "@tessera/codegen";
import { type Stmt, forEachStmt, gemmReluAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatSimulationReport } from "../src/index.js";

/**
 * D = ReLU(A·B) + C at n³: 64×64 block tiles, 2×2 virtual threads (as vthread.y × vthread.x, or
 * fused into one vthread.x of 4) of 8×8 threads with 4×4 register tiles, k in chunks of 8 staged
 * in shared memory by the block's 64 threads, the write-back and epilogue at the thread loop.
 */
function vthreadGemm(n: number, virtualThreads: "2x2" | "fused"): Schedule {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1, i2, i3, i4] = sch.split(i, [null, 2, 8, 1, 4]) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  const [j0, j1, j2, j3, j4] = sch.split(j, [null, 2, 8, 1, 4]) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  const [k0, k1, k2] = sch.split(k, [null, 8, 1]) as [LoopRV, LoopRV, LoopRV];
  sch.reorder(i0, j0, i1, j1, i2, j2, k0, k1, i3, j3, k2, i4, j4);
  sch.bind(sch.fuse(i0, j0), "blockIdx.x");
  if (virtualThreads === "fused") {
    sch.bind(sch.fuse(i1, j1), "vthread.x");
  } else {
    sch.bind(i1, "vthread.y");
    sch.bind(j1, "vthread.x");
  }
  const tx = sch.fuse(i2, j2);
  sch.bind(tx, "threadIdx.x");
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  sch.reverseComputeAt(writeBack, tx, true);
  for (const index of [0, 1]) {
    const stage = sch.cacheRead(gemm, index, "shared");
    sch.computeAt(stage, k0, true);
    const fused = sch.fuse(...sch.getLoops(stage).slice(-2));
    const [, thread] = sch.split(fused, [null, 64]) as [LoopRV, LoopRV];
    sch.bind(thread, "threadIdx.x");
  }
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
  return sch;
}

/** How often each kind of statement occurs in the kernel. */
function census(body: Stmt) {
  const storesTo = new Map<string, number>();
  const loops: string[] = [];
  const allocations = new Map<string, number>();
  let barriers = 0;
  forEachStmt(body, (s) => {
    if (s.kind === "BufferStore") storesTo.set(s.buffer.name, (storesTo.get(s.buffer.name) ?? 0) + 1);
    if (s.kind === "For") loops.push(s.loopVar.name);
    if (s.kind === "Allocate" && s.buffer.shape[0]?.kind === "IntImm") allocations.set(s.buffer.name, s.buffer.shape[0].value);
    if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync") barriers++;
  });
  return { storesTo: Object.fromEntries(storesTo), loops, allocations: Object.fromEntries(allocations), barriers };
}

describe("a GEMM with virtual threads outside the k loop", () => {
  for (const virtualThreads of ["2x2", "fused"] as const) {
    it(`${virtualThreads}: the k loop, the fetch and the barriers once; the update 4 times; a 4×16 accumulator; simulates race-free like the sequential executor`, () => {
      const module = lower(vthreadGemm(128, virtualThreads), "nvidia/h100");
      expect(module.kernels).toHaveLength(1);
      const kernel: DeviceKernel = module.kernels[0]!;
      expect(kernel.launch.grid).toEqual([4, 1, 1]);
      expect(kernel.launch.block).toEqual([64, 1, 1]);
      const { storesTo, loops, allocations, barriers } = census(kernel.body);
      expect(loops.filter((l) => l === "k_0")).toHaveLength(1);
      expect(loops.some((l) => l.startsWith("vthread"))).toBe(false);
      // One fetch store per shared tile; the accumulator's zeroing and update once per virtual
      // thread; the fused epilogue stores one register tile per virtual thread.
      expect(storesTo).toEqual({ A_shared: 1, B_shared: 1, matmul_local: 8, D: 4 });
      expect(allocations).toEqual({ matmul_local: 64, A_shared: 512, B_shared: 512 });
      expect(barriers).toBe(2);

      const source = codegenCuda(module).source;
      expect(source).toContain("float matmul_local[64];");
      expect(source.match(/for \(int k_0 = 0; k_0 < 16; \+\+k_0\)/g)).toHaveLength(1);
      expect(source.match(/__syncthreads\(\);/g)).toHaveLength(2);

      const report = compareWithReference(module, gemmReluAdd(128).func, { seed: 5, rtol: 1e-4, atol: 1e-4 });
      expect(report.passed, formatSimulationReport(report.simulation)).toBe(true);
      expect(report.simulation.raceCount).toBe(0);
      expect(report.simulation.uninitializedReadCount).toBe(0);
      expect(report.simulation.kernels[0]!.intervalsPerBlock).toBe(33);
    });
  }
});

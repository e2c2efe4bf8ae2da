/**
 * Data races on global memory: threads of one block with no barrier between their accesses, and
 * threads of different blocks (never ordered within a launch), on an element of a buffer the
 * kernel writes, at least one access a write. The simulator runs threads one after another, so a
 * racy reduction gives the right numbers here and wrong ones on a GPU: only the detector sees it.
 */
import { lower } from "@tessera/codegen";
import { matmul, randomArgs } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { compareWithReference, describeRaceCounts, formatSimulationReport, simulate } from "../src/index.js";
import { compileKernel } from "../src/compile-kernel.js";
import { moduleFromLoweredScript } from "./helpers.js";

/** `C = A·B` (16³) in 4×4 blocks of 4×4 threads, k split in 4 chunks whose loop is bound to `reductionAxis`. */
function reductionBoundToThreads(reductionAxis: "threadIdx.y" | "threadIdx.z"): Schedule {
  const sch = new Schedule(matmul(16, 16, 16).func);
  const [i, j, k] = sch.getLoops(sch.getBlock("C")) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1] = sch.split(i, [null, 4]) as [LoopRV, LoopRV];
  const [j0, j1] = sch.split(j, [null, 4]) as [LoopRV, LoopRV];
  const [k0, k1] = sch.split(k, [4, null]) as [LoopRV, LoopRV];
  sch.reorder(i0, j0, i1, j1, k0, k1);
  sch.bind(i0, "blockIdx.x");
  sch.bind(j0, "blockIdx.y");
  sch.bind(i1, "threadIdx.x");
  sch.bind(j1, reductionAxis === "threadIdx.y" ? "threadIdx.z" : "threadIdx.y");
  sch.bind(k0, reductionAxis);
  return sch;
}

/**
 * Two blocks of four threads; block b writes `B[4b + t]`, then reads `B[4(1 - b) + t]`, the other
 * block's slice; `sameSlice` makes both blocks write `B[t]` instead (and read nothing back).
 */
function twoBlockKernel(opts: { sameSlice?: boolean } = {}): string {
  const body = opts.sameSlice
    ? "B[threadIdx_x] = A[blockIdx_x * 4 + threadIdx_x]"
    : "B[blockIdx_x * 4 + threadIdx_x] = A[threadIdx_x]\n    C[blockIdx_x * 4 + threadIdx_x] = B[(1 - blockIdx_x) * 4 + threadIdx_x]";
  return `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    ${body}
`;
}

/**
 * One block of `threads` threads: each writes `B[t]`, then (across a barrier with `sync`) reads
 * its neighbour's `B[(t + 1) % threads]` into `C[t]`, and its own `B[t]` back.
 */
function neighbourKernel(opts: { sync: boolean; threads?: number }): string {
  const n = opts.threads ?? 8;
  return `
@T.prim_func
def main(A: T.Buffer((${n},), "float32"), B: T.Buffer((${n},), "float32"), C: T.Buffer((${n},), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", ${n})
    B[threadIdx_x] = A[threadIdx_x] * T.float32(2)
    B[threadIdx_x] = B[threadIdx_x] + T.float32(1)
${opts.sync ? '    T.tvm_storage_sync("shared")\n' : ""}    C[threadIdx_x] = B[(threadIdx_x + 1) % ${n}] + B[threadIdx_x]
`;
}

function run(script: string, blocks?: readonly (readonly [number, number, number])[]) {
  const module = moduleFromLoweredScript(script);
  return simulate(module, randomArgs(module.source, 1), blocks === undefined ? {} : { blocks });
}

describe("data races on global memory", () => {
  it.each(["threadIdx.z", "threadIdx.y"] as const)(
    "a reduction loop bound to %s: the threads accumulate into one element of C, a race the right numbers hide",
    (axis) => {
      const sch = reductionBoundToThreads(axis);
      const module = lower(sch.func, "nvidia/tesla-t4");
      const report = compareWithReference(module, matmul(16, 16, 16).func, { seed: 2 });
      // Run one thread after another, the partial sums add up; a GPU runs them at once.
      expect(report.matches).toBe(true);
      expect(report.passed).toBe(false);
      const sim = report.simulation;
      expect(sim.raceCounts.shared).toBe(0);
      expect(sim.raceCounts.global).toBe(sim.raceCount);
      expect(sim.raceCount).toBeGreaterThan(0);
      const race = sim.races[0]!;
      expect(race).toMatchObject({ scope: "global", buffer: "C", block: [0, 0, 0], firstBlock: [0, 0, 0] });
      expect(race.firstThread).not.toEqual(race.secondThread);
      expect(race.message).toMatch(
        /^(write-write|read-after-write|write-after-read) race on global memory C\[\d+\] in kernel \w+, block \(0, 0, 0\): thread \(/,
      );
      expect(formatSimulationReport(sim)).toContain(`${sim.raceCount} data race(s) on global memory:`);
    },
  );

  it("two blocks writing one element race, whatever the barriers", () => {
    const report = run(twoBlockKernel({ sameSlice: true }));
    expect(report.raceCounts).toEqual({ shared: 0, global: 4 });
    expect(report.races.map((r) => [r.kind, r.buffer, r.index])).toEqual([0, 1, 2, 3].map((i) => ["write-write", "B", i]));
    const race = report.races[0]!;
    expect(race).toMatchObject({ block: [1, 0, 0], firstBlock: [0, 0, 0], firstThread: [0, 0, 0], secondThread: [0, 0, 0] });
    expect(race.message).toBe(
      "write-write race on global memory B[0] in kernel kernel_kernel: block (1, 0, 0), thread (0, 0, 0) (B[threadIdx_x]) both write " +
        "block (0, 0, 0), thread (0, 0, 0) (barrier interval 0); the blocks of a launch run in no set order",
    );
  });

  it("a block reading what another block writes races both ways (read then write, write then read)", () => {
    const report = run(twoBlockKernel());
    // Each thread t of block 1 overwrites B[4 + t], which block 0 read, then reads B[t], which block 0 wrote.
    expect(report.races.map((r) => `${r.kind} ${r.buffer}[${r.index}] ${r.firstBlock.join()}→${r.block.join()}`)).toEqual(
      [0, 1, 2, 3].flatMap((t) => [`write-after-read B[${4 + t}] 0,0,0→1,0,0`, `read-after-write B[${t}] 0,0,0→1,0,0`]),
    );
  });

  it("sampled blocks: races between the blocks that ran are found, in their order; a block alone has none", () => {
    expect(run(twoBlockKernel({ sameSlice: true }), [[1, 0, 0]]).raceCount).toBe(0);
    const both = run(twoBlockKernel({ sameSlice: true }), [
      [1, 0, 0],
      [0, 0, 0],
    ]);
    expect(both.raceCounts.global).toBe(4);
    expect(both.races[0]).toMatchObject({ firstBlock: [1, 0, 0], block: [0, 0, 0] });
  });

  it("reading an input from every thread of every block, and each thread writing its own elements, is no race", () => {
    const report = run(`
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((64,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    B[blockIdx_x * 16 + threadIdx_x] = A[0] + A[blockIdx_x]
    B[blockIdx_x * 16 + threadIdx_x] = B[blockIdx_x * 16 + threadIdx_x] * A[3]
`);
    expect(report.raceCount).toBe(0);
  });

  it("a thread re-reading its own element is no race; a neighbour's element is one without a barrier, and none across one", () => {
    const synced = run(neighbourKernel({ sync: true }));
    expect(synced.raceCount).toBe(0);
    const racy = run(neighbourKernel({ sync: false }));
    // Thread t reads B[t + 1] before thread t + 1 writes it (twice); thread 7 reads B[0] after thread 0 wrote it.
    const pairs = racy.races.map((r) => `${r.kind} B[${r.index}] ${r.firstThread[0]}→${r.secondThread[0]}`);
    expect(new Set(pairs)).toEqual(new Set([...[1, 2, 3, 4, 5, 6, 7].map((i) => `write-after-read B[${i}] ${i - 1}→${i}`), "read-after-write B[0] 0→7"]));
    expect(racy.raceCounts).toEqual({ shared: 0, global: 15 });
  });

  it("words the counts by scope", () => {
    expect(describeRaceCounts({ shared: 0, global: 3 })).toBe("3 data race(s) on global memory");
    expect(describeRaceCounts({ shared: 2, global: 0 })).toBe("2 data race(s) on shared memory");
    expect(describeRaceCounts({ shared: 2, global: 3 })).toBe("2 data race(s) on shared memory and 3 on global memory");
  });

  it("tracks only the global buffers the kernel writes, and none with the detector off", () => {
    const kernel = moduleFromLoweredScript(twoBlockKernel()).kernels[0]!;
    expect(compileKernel(kernel, { detectRaces: true }).tracked.map((m) => `${m.scope} ${m.buffer.name} ${m.elements}`)).toEqual(["global B 8", "global C 8"]);
    expect(compileKernel(kernel, { detectRaces: false }).tracked).toEqual([]);
    const module = moduleFromLoweredScript(twoBlockKernel());
    expect(simulate(module, randomArgs(module.source, 1), { detectRaces: false }).raceCount).toBe(0);
  });
});

import { windowSum } from "@tessera/corpus";
import { randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { BarrierDivergenceError, OutOfBoundsError, SimulationError, compareWithReference, simulate } from "../src/index.js";
import { moduleFromLoweredScript, windowSumKernel } from "./helpers.js";

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error("expected an error");
}

describe("window sum with a shared stage", () => {
  it("matches the sequential executor on the unscheduled function, with no race", () => {
    const report = compareWithReference(moduleFromLoweredScript(windowSumKernel()), windowSum(256), { seed: 3 });
    expect(report.matches).toBe(true);
    expect(report.passed).toBe(true);
    expect(report.maxAbsError).toBe(0);
    expect(report.simulation.raceCount).toBe(0);
    expect(report.simulation.uninitializedReadCount).toBe(0);
    expect(report.simulation.kernels[0]).toMatchObject({ grid: [4, 1, 1], block: [64, 1, 1], intervalsPerBlock: 2, sharedBytes: 264 });
  });

  it("without the barrier, reports a race on A_shared between two threads (and the wrong result)", () => {
    const module = moduleFromLoweredScript(windowSumKernel({ sync: false }));
    const report = compareWithReference(module, windowSum(256));
    expect(report.passed).toBe(false);
    expect(report.matches).toBe(false); // the threads read neighbours' elements before they are written: NaN
    const race = report.simulation.races[0]!;
    expect(race).toMatchObject({
      buffer: "A_shared",
      kind: "write-after-read",
      index: 1,
      block: [0, 0, 0],
      firstThread: [0, 0, 0],
      secondThread: [1, 0, 0],
    });
    expect(race.access).toContain("A_shared");
    expect(race.message).toMatch(/write-after-read race on shared memory A_shared\[1\].*thread \(1, 0, 0\).*\(0, 0, 0\)/);
    expect(report.simulation.raceCount).toBeGreaterThan(report.simulation.races.length - 1);
    expect(report.simulation.uninitializedReadCount).toBeGreaterThan(0);
  });

  it("finds no race when the detector is off, and keeps at most maxReports", () => {
    const module = moduleFromLoweredScript(windowSumKernel({ sync: false }));
    const off = simulate(module, randomArgs(module.source, 0), { detectRaces: false });
    expect(off.raceCount).toBe(0);
    const capped = simulate(module, randomArgs(module.source, 0), { maxReports: 2 });
    expect(capped.races).toHaveLength(2);
    expect(capped.raceCount).toBeGreaterThan(2);
  });

  it("reports an off-by-one store with kernel, block, thread, buffer, index and the valid range", () => {
    const module = moduleFromLoweredScript(windowSumKernel({ outputIndex: "blockIdx_x * 64 + threadIdx_x + 1" }));
    const err = thrown(() => simulate(module, randomArgs(module.source, 0)));
    expect(err).toBeInstanceOf(OutOfBoundsError);
    expect(err).toBeInstanceOf(SimulationError);
    const oob = err as OutOfBoundsError;
    expect(oob.at).toEqual({ kernel: "kernel_kernel", block: [3, 0, 0], thread: [63, 0, 0] });
    expect(oob).toMatchObject({ buffer: "B", access: "store", indices: [256], shape: [256] });
    expect(oob.message).toContain("block (3, 0, 0), thread (63, 0, 0)");
    expect(oob.message).toContain("index 256 is outside the valid range [0, 256)");
  });

  it("rejects arguments that do not fit", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    expect(() => simulate(module, [new Float32Array(258)])).toThrow(/takes 2 arguments \(A, B\), got 1/);
    expect(() => simulate(module, [new Float32Array(258), new Float32Array(10)])).toThrow(/needs 256 elements/);
    expect(() => simulate(module, [new Float32Array(258), new Int32Array(256)])).toThrow(/expected a Float32Array/);
  });
});

describe("GPU semantics", () => {
  it("reports barrier divergence (a barrier inside a thread-dependent if) with the block and threads", () => {
    const module = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_x < 8:
        T.tvm_storage_sync("shared")
    A[blockIdx_x * 32 + threadIdx_x] = T.float32(1)
`);
    const err = thrown(() => simulate(module, [new Float32Array(64)]));
    expect(err).toBeInstanceOf(BarrierDivergenceError);
    const div = err as BarrierDivergenceError;
    expect(div.block).toEqual([0, 0, 0]);
    expect(div.groups.map((g) => [g.state, g.count])).toEqual([
      ['waiting at barrier #1 (T.tvm_storage_sync("shared"))', 8],
      ["finished", 24],
    ]);
    expect(div.groups[0]!.threads[0]).toEqual([0, 0, 0]);
    expect(div.message).toContain("barrier divergence in kernel kernel_kernel, block (0, 0, 0)");
    expect(div.message).toContain("finished: threads (8, 0, 0)");
  });

  it("gives every block its own shared memory, poisoned until written", () => {
    // Block 0 fills S; block 1 only reads it: it must see its own, never-written, memory.
    const module = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    S = T.allocate([32], "float32", "shared")
    S_1 = T.Buffer((32,), data=S, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if blockIdx_x == 0:
        S_1[threadIdx_x] = T.float32(7)
    T.tvm_storage_sync("shared")
    A[blockIdx_x * 32 + threadIdx_x] = S_1[31 - threadIdx_x]
`);
    const out = new Float32Array(64);
    const report = simulate(module, [out]);
    expect([...out.subarray(0, 32)].every((v) => v === 7)).toBe(true);
    expect([...out.subarray(32)].every((v) => Number.isNaN(v))).toBe(true);
    expect(report.uninitializedReadCount).toBe(32);
    expect(report.uninitializedReads[0]).toMatchObject({ buffer: "S", index: 31, block: [1, 0, 0], thread: [0, 0, 0] });
    expect(report.raceCount).toBe(0);
  });

  it("poisons never-written shared memory of integer type with a marker", () => {
    const module = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    S = T.allocate([4], "int32", "shared")
    S_1 = T.Buffer((4,), "int32", data=S, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    A[threadIdx_x] = S_1[threadIdx_x]
`);
    const out = new Int32Array(4);
    simulate(module, [out]);
    expect([...out]).toEqual([0xdeadbeef | 0, 0xdeadbeef | 0, 0xdeadbeef | 0, 0xdeadbeef | 0]);
  });

  it("gives every thread its own locals and scalars across barriers", () => {
    const module = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((128,), "int32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    r = T.allocate([1], "int32", "local")
    r_1 = T.Buffer((1,), "int32", data=r, scope="local")
    r_1[0] = threadIdx_x * 3
    T.tvm_storage_sync("shared")
    with T.LetStmt(threadIdx_x + 1000) as v:
        T.tvm_storage_sync("shared")
        A[threadIdx_x] = r_1[0]
        A[threadIdx_x + 64] = v
`);
    const out = new Int32Array(128);
    const report = simulate(module, [out]);
    expect([...out.subarray(0, 64)]).toEqual(Array.from({ length: 64 }, (_, t) => t * 3));
    expect([...out.subarray(64)]).toEqual(Array.from({ length: 64 }, (_, t) => t + 1000));
    expect(report.kernels[0]!.intervalsPerBlock).toBe(3);
  });

  it("binds every occurrence of a thread tag to the thread's index and runs virtual threads as loops", () => {
    const module = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    S = T.allocate([16], "int32", "shared")
    S_1 = T.Buffer((16,), "int32", data=S, scope="shared")
    with T.launch_thread("threadIdx.x", 8) as tx:
        vt = T.env_thread("vthread")
        T.launch_thread(vt, 2)
        S_1[vt * 8 + tx] = vt * 8 + tx
    T.tvm_storage_sync("shared")
    with T.launch_thread("threadIdx.x", 8) as tx2:
        B[tx2] = S_1[15 - tx2]
        B[tx2 + 8] = S_1[7 - tx2]
`);
    const out = new Int32Array(16);
    const report = simulate(module, [new Int32Array(16), out]);
    expect([...out]).toEqual([...Array.from({ length: 8 }, (_, t) => 15 - t), ...Array.from({ length: 8 }, (_, t) => 7 - t)]);
    expect(report.raceCount).toBe(0);
    expect(report.kernels[0]!.block).toEqual([8, 1, 1]);
  });

  it("reports a write-write race", () => {
    const module = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    S = T.allocate([1], "float32", "shared")
    S_1 = T.Buffer((1,), data=S, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    S_1[0] = T.Cast("float32", threadIdx_x)
    T.tvm_storage_sync("shared")
    A[threadIdx_x] = S_1[0]
`);
    const report = simulate(module, [new Float32Array(4)]);
    expect(report.races[0]).toMatchObject({ kind: "write-write", buffer: "S", index: 0, firstThread: [0, 0, 0], secondThread: [1, 0, 0] });
    expect(report.raceCount).toBe(3);
  });
});

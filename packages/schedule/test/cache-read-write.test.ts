import { assertStructuralEqual, gemmReluAdd, parsePrimFunc, structuralEqual, verifyWellFormed } from "@tessera/ir";
import { expectScheduleError, runBoth } from "./support.js";
import { describe, expect, it } from "vitest";
import { BlockNotFoundError, BufferIndexOutOfRangeError, InvalidStorageScopeError, NotRegionCoverError, NotSingleWriteBlock } from "../src/error-catalogue.js";
import { Schedule } from "../src/index.js";

const MATMUL = `
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;

const MULTI_CONSUMER = `
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    T0 = T.alloc_buffer((128,))
    for i in range(8):
        for j in range(16):
            with T.block("T0"):
                vi = T.axis.spatial(128, i * 16 + j)
                T0[vi] = A[vi] * T.float32(2)
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(128, i * 16 + j)
                B[vi] = T0[vi] + T.float32(1)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = T0[vi]
`;

describe("cacheRead", () => {
  it("caches the inputs of a matmul at the start of the root block (A_shared, B_local)", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const c = sch.getBlock("C");
    const aShared = sch.cacheRead(c, 0, "shared");
    const bLocal = sch.cacheRead(c, 1, "local");
    expect(sch.get(aShared).name).toBe("A_shared");
    expect(sch.get(bLocal).name).toBe("B_local");
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    A_shared = T.alloc_buffer((16, 16), scope="shared")
    B_local = T.alloc_buffer((16, 16), scope="local")
    for ax0, ax1 in T.grid(16, 16):
        with T.block("B_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(B[v0, v1])
            T.writes(B_local[v0, v1])
            B_local[v0, v1] = B[v0, v1]
    for ax0, ax1 in T.grid(16, 16):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A_shared[vi, vk], B_local[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A_shared[vi, vk] * B_local[vk, vj]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    expect(sch.trace.instructions.map((x) => x.kind.name)).toEqual(["GetBlock", "CacheRead", "CacheRead"]);
    // The gemm handle survives the rewrite.
    expect(sch.get(c).reads.map((r) => r.buffer.name)).toEqual(["A_shared", "B_local"]);
  });

  it("caches an intermediate buffer right before its first consumer, inside the shared loop", () => {
    const sch = new Schedule(parsePrimFunc(MULTI_CONSUMER));
    sch.cacheRead(sch.getBlock("B"), 0, "shared");
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    T0 = T.alloc_buffer((128,))
    T0_shared = T.alloc_buffer((128,), scope="shared")
    for i in range(8):
        for j in range(16):
            with T.block("T0"):
                vi = T.axis.spatial(128, i * 16 + j)
                T0[vi] = A[vi] * T.float32(2)
        for ax0 in range(16):
            with T.block("T0_shared"):
                v0 = T.axis.spatial(128, i * 16 + ax0)
                T0_shared[v0] = T0[v0]
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(128, i * 16 + j)
                B[vi] = T0_shared[vi] + T.float32(1)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = T0_shared[vi]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("switches only the blocks listed in consumer_blocks", () => {
    const sch = new Schedule(parsePrimFunc(MULTI_CONSUMER));
    const cache = sch.cacheRead(sch.getBlock("B"), 0, "local", [sch.getBlock("C")]);
    expect(sch.get(cache).name).toBe("T0_local");
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    T0 = T.alloc_buffer((128,))
    T0_local = T.alloc_buffer((128,), scope="local")
    for i in range(8):
        for j in range(16):
            with T.block("T0"):
                vi = T.axis.spatial(128, i * 16 + j)
                T0[vi] = A[vi] * T.float32(2)
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(128, i * 16 + j)
                B[vi] = T0[vi] + T.float32(1)
    for ax0 in range(128):
        with T.block("T0_local"):
            v0 = T.axis.spatial(128, ax0)
            T0_local[v0] = T0[v0]
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = T0_local[vi]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("makes a compact cache of the read region when the scope block declares it", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((8,), "int32")):
    with T.block("outer"):
        T.reads(A[8:16])
        T.writes(B[0:8])
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi + 8]
`),
    );
    sch.cacheRead(sch.getBlock("B"), 0, "shared");
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((8,), "int32")):
    with T.block("outer"):
        T.reads(A[8:16])
        T.writes(B[0:8])
        A_shared = T.alloc_buffer((8,), "int32", scope="shared")
        for ax0 in range(8):
            with T.block("A_shared"):
                v0 = T.axis.spatial(8, ax0)
                T.reads(A[8 + v0])
                T.writes(A_shared[v0])
                A_shared[v0] = A[8 + v0]
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A_shared[vi])
                T.writes(B[vi])
                B[vi] = A_shared[vi]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("rejects an unknown storage scope", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const c = sch.getBlock("C");
    expectScheduleError(sch, () => sch.cacheRead(c, 0, "texture" as never), InvalidStorageScopeError, /The input storage scope "texture" is invalid/);
  });

  it("rejects a read index out of range", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const c = sch.getBlock("C");
    expectScheduleError(
      sch,
      () => sch.cacheRead(c, 2, "shared"),
      BufferIndexOutOfRangeError,
      "The input `buffer_index` is out of range. It is required to be in range [0, 2) but got 2",
    );
  });

  it("rejects a buffer with two writers", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(4):
        with T.block("B0"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(4):
        with T.block("B1"):
            vi = T.axis.spatial(8, i + 4)
            B[vi] = A[vi] + 1
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
`),
    );
    const c = sch.getBlock("C");
    expectScheduleError(
      sch,
      () => sch.cacheRead(c, 0, "shared"),
      NotSingleWriteBlock,
      "The buffer B is expected to be written by single block, but got 2 blocks who write it.",
    );
    const b0 = sch.getBlock("B0");
    expectScheduleError(sch, () => sch.cacheWrite(b0, 0, "local"), NotSingleWriteBlock, /expected to be written by single block/);
  });

  it("rejects a reader that reads more than its producer writes", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
`),
    );
    const c = sch.getBlock("C");
    expectScheduleError(sch, () => sch.cacheRead(c, 0, "shared"), NotRegionCoverError, /region cover is not complete/);
  });
});

describe("cacheWrite", () => {
  it("computes a matmul into C_local and copies it out after the nest", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const c = sch.getBlock("C");
    const out = sch.cacheWrite(c, 0, "local");
    expect(sch.get(out).name).toBe("C_local");
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    C_local = T.alloc_buffer((16, 16), scope="local")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C_local[vi, vj])
            with T.init():
                C_local[vi, vj] = T.float32(0)
            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
    for ax0, ax1 in T.grid(16, 16):
        with T.block("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C_local[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_local[v0, v1]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    expect(sch.get(c).name).toBe("C");
  });

  it("caches the gemm of gemmReluAdd(64): relu reads matmul from the write-back block", () => {
    const sch = new Schedule(gemmReluAdd(64).func);
    const gemm = sch.getBlock("gemm");
    const wb = sch.cacheWrite(gemm, 0, "local");
    expect(sch.get(wb).name).toBe("matmul_local");
    expect(sch.getConsumers(wb).map((b) => sch.get(b).name)).toEqual(["relu"]);
    expect(sch.getProducers(wb).map((b) => sch.get(b).name)).toEqual(["gemm"]);
    const text = sch.script();
    expect(text).toContain('matmul_local = T.alloc_buffer((64, 64), scope="local")');
    expect(text).toContain("matmul_local[vi, vj] = matmul_local[vi, vj] + A[vi, vk] * B[vk, vj]");
    expect(text).toContain("matmul[v0, v1] = matmul_local[v0, v1]");
    expect(text).toContain("relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0.0))");
    assertStructuralEqual(sch.func, parsePrimFunc(text), { compareNames: true });
    const blocks = [...text.matchAll(/^\s*with T\.block\("(\w+)"\)/gm)].map((m) => m[1]);
    expect(blocks).toEqual(["gemm", "matmul_local", "relu", "add"]);
  });

  it("lets listed consumers read the cache directly and places the copy before the others", () => {
    const sch = new Schedule(parsePrimFunc(MULTI_CONSUMER));
    sch.cacheWrite(sch.getBlock("T0"), 0, "local", [sch.getBlock("B")]);
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    T0 = T.alloc_buffer((128,))
    T0_local = T.alloc_buffer((128,), scope="local")
    for i in range(8):
        for j in range(16):
            with T.block("T0"):
                vi = T.axis.spatial(128, i * 16 + j)
                T0_local[vi] = A[vi] * T.float32(2)
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(128, i * 16 + j)
                B[vi] = T0_local[vi] + T.float32(1)
    for ax0 in range(128):
        with T.block("T0_local"):
            v0 = T.axis.spatial(128, ax0)
            T0[v0] = T0_local[v0]
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = T0[vi]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("places the write-back inside the loop shared with the first consumer (full-shape cache)", () => {
    const sch = new Schedule(parsePrimFunc(MULTI_CONSUMER));
    sch.cacheWrite(sch.getBlock("T0"), 0, "shared");
    const text = sch.script();
    expect(text).toContain('T0_shared = T.alloc_buffer((128,), scope="shared")');
    expect(text).toContain("v0 = T.axis.spatial(128, i * 16 + ax0)");
    const blocks = [...text.matchAll(/^\s*with T\.block\("(\w+)"\)/gm)].map((m) => m[1]);
    expect(blocks).toEqual(["T0", "T0_shared", "B", "C"]);
  });

  it("rejects a write index out of range and leaves the schedule unchanged", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const c = sch.getBlock("C");
    expectScheduleError(sch, () => sch.cacheWrite(c, 1, "local"), BufferIndexOutOfRangeError, /required to be in range \[0, 1\) but got 1/);
    expectScheduleError(sch, () => sch.cacheWrite(c, 0, "global.texture" as never), InvalidStorageScopeError, /"global.texture" is invalid/);
    expect(structuralEqual(sch.func, parsePrimFunc(MATMUL))).toBe(true);
  });
});

describe("instruction rendering", () => {
  it("prints cache and scope calls as TypeScript", async () => {
    const { instructionKind } = await import("../src/instruction.js");
    expect(instructionKind("CacheRead")!.formatArgs(["b0", []], [0, "shared"], undefined)).toBe('b0, 0, "shared"');
    expect(instructionKind("CacheWrite")!.formatArgs(["b0", ["b1"]], [0, "local"], undefined)).toBe('b0, 0, "local", [b1]');
    expect(instructionKind("SetScope")!.formatArgs(["b0"], [0, "local"], undefined)).toBe('b0, 0, "local"');
    expect(instructionKind("StorageAlign")!.formatArgs(["b0"], [0, 0, 32, 8], undefined)).toBe("b0, 0, 0, 32, 8");
  });
});

describe("duplicate block names (cacheRead of one buffer for two consumers, as in TVM)", () => {
  const TWO_READERS = `
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi] + T.float32(1)
`;

  function twoStages(debugMask: "none" | "all" = "none") {
    const sch = new Schedule(parsePrimFunc(TWO_READERS), { debugMask });
    const b = sch.getBlock("B");
    const c = sch.getBlock("C");
    const forB = sch.cacheRead(b, 0, "shared", [b]);
    const forC = sch.cacheRead(c, 0, "shared", [c]);
    return { sch, b, c, forB, forC };
  }

  it("names both stages A_shared like TVM, keeps them well-formed and runnable", () => {
    const { sch, forB, forC } = twoStages("all");
    const text = sch.script();
    expect(text.match(/T\.block\("A_shared"\)/g)).toHaveLength(2);
    // Distinct buffers (the printer tells them apart as A_shared / A_shared_1, as TVM's does).
    expect(sch.get(forB).writes[0]!.buffer).not.toBe(sch.get(forC).writes[0]!.buffer);
    expect(() => verifyWellFormed(sch.func)).not.toThrow();
    const [before, after] = runBoth(parsePrimFunc(TWO_READERS), sch.func, 3);
    expect(after).toEqual(before);
  });

  it("reports an ambiguous getBlock clearly; the returned handles keep working", () => {
    const { sch, b, c, forB, forC } = twoStages();
    const err = expectScheduleError(sch, () => sch.getBlock("A_shared"), BlockNotFoundError, "Found 2 blocks with the name: A_shared");
    expect(err.message).toContain("use the handle returned by the primitive that made the block");
    sch.computeAt(forB, sch.getLoops(b)[0]);
    sch.computeAt(forC, sch.getLoops(c)[0]);
    expect(sch.getProducers(b)).toHaveLength(1);
    const replayed = new Schedule(parsePrimFunc(TWO_READERS));
    sch.trace.applyTo(replayed);
    assertStructuralEqual(replayed.func, sch.func);
    const [before, after] = runBoth(parsePrimFunc(TWO_READERS), sch.func, 4);
    expect(after).toEqual(before);
  });
});

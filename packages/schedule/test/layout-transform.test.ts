import { assertStructuralEqual, floordiv, floormod, gemmReluAdd, parsePrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BufferIndexOutOfRangeError, IndexMapError, NonAllocatedBufferError, TransformLayoutError } from "../src/error-catalogue.js";
import { Schedule, Trace } from "../src/index.js";
import { expectScheduleError, runBoth } from "./support.js";

const PRODUCER_CONSUMER = `
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
`;

describe("transformLayout", () => {
  it("stores an intermediate transposed: the allocation, every access and every region follow the map", () => {
    const sch = new Schedule(parsePrimFunc(PRODUCER_CONSUMER));
    sch.transformLayout(sch.getBlock("B"), ["write", 0], (i, j) => [j, i]);
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((8, 16))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vj, vi])
            B[vj, vi] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vj, vi])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vj, vi] + T.float32(1)
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    const [before, after] = runBoth(parsePrimFunc(PRODUCER_CONSUMER), sch.func, 3);
    expect(after).toEqual(before);
  });

  it("names the buffer by the consumer's read index or by name, and splits an axis", () => {
    const sch = new Schedule(parsePrimFunc(PRODUCER_CONSUMER));
    sch.transformLayout(sch.getBlock("C"), "B", (i, j) => [floordiv(i, 4), j, floormod(i, 4)]);
    expect(sch.script()).toContain("B = T.alloc_buffer((4, 8, 4))");
    expect(sch.script()).toContain("C[vi, vj] = B[vi // 4, vj, vi % 4] + T.float32(1.0)");
    const [before, after] = runBoth(parsePrimFunc(PRODUCER_CONSUMER), sch.func, 4);
    expect(after).toEqual(before);
  });

  it("maps a cache stage's regions under compute_at (a transposed shared tile of a tiled matmul)", () => {
    const original = gemmReluAdd(32).func;
    const sch = new Schedule(original);
    const gemm = sch.getBlock("gemm");
    const [i, , k] = sch.getLoops(gemm);
    const [, i1] = sch.split(i, [null, 8]);
    const [k0, k1] = sch.split(k, [null, 4]);
    sch.reorder(k0, i1, k1);
    const aShared = sch.cacheRead(gemm, 0, "shared");
    sch.computeAt(aShared, k0);
    sch.transformLayout(aShared, ["write", 0], (r, c) => [c, r]);
    const text = sch.script();
    expect(text).toContain('A_shared = T.alloc_buffer((32, 32), scope="shared")');
    expect(text).toContain("T.writes(A_shared[v1, v0])");
    expect(text).toContain("matmul[vi, vj] = matmul[vi, vj] + A_shared[vk, vi] * B[vk, vj]");
    const [before, after] = runBoth(original, sch.func, 5);
    expect(after[3]).toEqual(before[3]);
  });

  it("is recorded in the trace, printed as an arrow function and replayed from JSON", () => {
    const sch = new Schedule(parsePrimFunc(PRODUCER_CONSUMER));
    sch.transformLayout(sch.getBlock("B"), ["write", 0], (row, col) => [col, floordiv(row, 2), floormod(row, 2)]);
    expect(sch.trace.show()).toContain('sch.transformLayout(b0, ["write", 0], (row, col) => [col, floordiv(row, 2), floormod(row, 2)]);');
    const json = JSON.parse(JSON.stringify(sch.trace.toJSON()));
    const replayed = new Schedule(parsePrimFunc(PRODUCER_CONSUMER));
    Trace.fromJSON(json).applyTo(replayed);
    assertStructuralEqual(replayed.func, sch.func, { compareNames: true });
  });

  it("keeps results on random permutations of a 3-D intermediate", () => {
    const src = `
@T.prim_func
def main(A: T.Buffer((2, 3, 4), "float32"), C: T.Buffer((2, 3, 4), "float32")):
    B = T.alloc_buffer((2, 3, 4))
    for i, j, k in T.grid(2, 3, 4):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1)
    for i, j, k in T.grid(2, 3, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[(vi + 1) % 2, vj, 3 - vk] * T.float32(3)
`;
    fc.assert(
      fc.property(fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 }), fc.integer({ min: 0, max: 1000 }), (perm, seed) => {
        const sch = new Schedule(parsePrimFunc(src));
        sch.transformLayout(sch.getBlock("C"), ["read", 0], (a, b, c) => perm.map((p) => [a, b, c][p]!));
        const shape = sch.get(sch.getBlock("B")).writes[0]!.buffer.shape.map((d) => (d.kind === "IntImm" ? d.value : -1));
        expect(shape).toEqual(perm.map((p) => [2, 3, 4][p]));
        const [before, after] = runBoth(parsePrimFunc(src), sch.func, seed);
        expect(after).toEqual(before);
      }),
      { numRuns: 30 },
    );
  });

  it("rejects maps that do not fit the buffer, parameters, and bad buffer specs", () => {
    const sch = new Schedule(parsePrimFunc(PRODUCER_CONSUMER));
    const b = sch.getBlock("B");
    expectScheduleError(
      sch,
      () => sch.transformLayout(b, ["write", 0], (i) => [i]),
      TransformLayoutError,
      "the index map takes 1 index but buffer B has 2 dimensions",
    );
    expectScheduleError(
      sch,
      () => sch.transformLayout(b, ["write", 0], (i, j) => [i, floormod(j, 4)]),
      TransformLayoutError,
      "is not a bijection of the index space of buffer B",
    );
    expectScheduleError(
      sch,
      () => sch.transformLayout(b, ["write", 0], (i, j) => [i, j, 1]),
      TransformLayoutError,
      "result 2 of the index map (1) starts at 1, not 0",
    );
    expectScheduleError(
      sch,
      () => sch.transformLayout(b, ["read", 0], (i, j) => [j, i]),
      NonAllocatedBufferError,
      "The input buffer A is not allocated by a block",
    );
    expectScheduleError(sch, () => sch.transformLayout(b, ["write", 1], (i, j) => [j, i]), BufferIndexOutOfRangeError, "out of range");
    expectScheduleError(sch, () => sch.transformLayout(b, "Z", (i, j) => [j, i]), TransformLayoutError, 'block B neither reads nor writes a buffer named "Z"');
    expectScheduleError(
      sch,
      () =>
        sch.transformLayout(b, ["write", 0], () => {
          throw new Error("boom");
        }),
      IndexMapError,
      "the index map function threw: boom",
    );
    expectScheduleError(
      sch,
      () => sch.transformLayout(b, ["write", 0], (i, j) => [j, "x" as never]),
      IndexMapError,
      "result 1 of the index map is not an index expression",
    );
  });

  it("asks for storageAlign after the transform, not before", () => {
    const sch = new Schedule(parsePrimFunc(PRODUCER_CONSUMER));
    const b = sch.getBlock("B");
    sch.storageAlign(b, 0, 0, 8, 1);
    expectScheduleError(sch, () => sch.transformLayout(b, ["write", 0], (i, j) => [j, i]), TransformLayoutError, "call storageAlign after transformLayout");
  });
});

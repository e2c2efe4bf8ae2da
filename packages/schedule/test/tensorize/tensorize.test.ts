/**
 * tensorize with intrinsics whose implementation is TIR: the result computes what the workload
 * computed (CPU executor), the implementation's buffers view the actual ones through
 * match_buffer, and every kind of mismatch is a TensorIntrinMismatchError naming the loop or
 * block, the intrinsic and the difference.
 */
import { type PrimFunc, parsePrimFunc, printTVMScript, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { TensorIntrinMismatchError } from "../../src/error-catalogue.js";
import { type LoopRV, Schedule, ScheduleUsageError } from "../../src/index.js";
import { expectScheduleError, runBoth } from "../support.js";
import { BATCH_MATMUL, DOT_4, MMA_16, MMA_16_SHARED_A, matmulNT } from "./fixtures.js";

/** Tiles i, j, k of the "update" block by `tile` and returns the inner i loop (the top of the tile). */
function tiled(func: PrimFunc, tile: number): [Schedule, LoopRV] {
  const sch = new Schedule(func, { debugMask: "all" });
  const loops = sch.getLoops(sch.getBlock("update"));
  const [i, j, k] = loops.slice(-3);
  const [i0, i1] = sch.split(i, [null, tile]);
  const [j0, j1] = sch.split(j, [null, tile]);
  const [k0, k1] = sch.split(k, [null, tile]);
  sch.reorder(i0, j0, k0, i1, j1, k1);
  return [sch, i1];
}

function expectSameResults(before: PrimFunc, after: PrimFunc): void {
  const [a, b] = runBoth(before, after, 9);
  expect(b).toEqual(a);
}

describe("tensorize", () => {
  it("replaces a 16×16×16 tile by the implementation, viewing A, B, C through match_buffer", () => {
    const func = matmulNT(64);
    const [sch, i1] = tiled(func, 16);
    sch.tensorize(i1, MMA_16);
    const outer = sch.get(sch.getBlock("update_o"));
    expect(outer.matchBuffers.map((m) => `${m.buffer.name}<-${m.source.buffer.name}`)).toEqual(["A<-A", "B<-B", "C<-C"]);
    const text = printTVMScript(sch.func);
    expect(text).toContain("T.match_buffer(A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], (16, 16), offset_factor=1)");
    expect(text).toContain("for i, k, j in T.grid(16, 16, 16):");
    expectSameResults(func, sch.func);
    // What the schedule prints reads back as the same function.
    expect(structuralEqual(parsePrimFunc(text), sch.func)).toBe(true);
  });

  it("tensorizes a block that blockize made", () => {
    const func = matmulNT(32);
    const [sch, i1] = tiled(func, 16);
    const outer = sch.blockize(i1);
    sch.tensorize(outer, MMA_16);
    expectSameResults(func, sch.func);
  });

  it("matches 2-D intrinsic buffers in the last dimensions of 3-D buffers", () => {
    const [sch, i1] = tiled(BATCH_MATMUL, 16);
    sch.tensorize(i1, MMA_16);
    const m = sch.get(sch.getBlock("update_o")).matchBuffers[0]!;
    expect(printTVMScript(sch.func)).toContain("T.match_buffer(A[vn_o, vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], (16, 16), offset_factor=1)");
    expect(m.source.region.map((r) => r.extent)).toMatchObject([{ value: 1 }, { value: 16 }, { value: 16 }]);
    expectSameResults(BATCH_MATMUL, sch.func);
  });

  it("tensorizes a dot product into a scalar", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("update"):
            vi, vk = T.axis.remap("SR", [i, k])
            C[vi] = C[vi] + A[vi, vk] * B[vi, vk]
`);
    const sch = new Schedule(func, { debugMask: "all" });
    const [, k] = sch.getLoops(sch.getBlock("update"));
    const [, k1] = sch.split(k, [null, 4]);
    sch.tensorize(k1, DOT_4);
    expect(printTVMScript(sch.func)).toContain("C_1[()] = C_1[()] + A_1[0] * B_1[0]");
    const [a, b] = runBoth(func, sch.func, 4);
    b.forEach((arr, n) => arr.forEach((x, m) => expect(x).toBeCloseTo(a[n]![m]!, 4)));
  });

  it("gives the views int64 extents where the workload indexes with int64 (regression: int32 extents)", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((T.int64(32), T.int64(32)), "float32"), B: T.Buffer((T.int64(32), T.int64(32)), "float32"), C: T.Buffer((T.int64(32), T.int64(32)), "float32")):
    for i, j, k in T.grid(T.int64(32), T.int64(32), T.int64(32)):
        with T.block("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]
`);
    const [sch, i1] = tiled(func, 16);
    sch.tensorize(i1, MMA_16);
    const views = sch.get(sch.getBlock("update_o")).matchBuffers;
    expect(views.flatMap((m) => m.source.region.map((r) => [r.min.dtype, r.extent.dtype, r.extent.kind]))).toEqual(Array(6).fill(["int64", "int64", "IntImm"]));
    expectSameResults(func, sch.func);
  });

  it("keeps the workload's annotations over the implementation's", () => {
    const func = matmulNT(16);
    const sch = new Schedule(func);
    const [i] = sch.getLoops(sch.getBlock("update"));
    const outer = sch.blockize(i);
    sch.annotate(outer, "meta_schedule.auto_tensorize", "x");
    sch.tensorize(outer, MMA_16);
    expect(sch.get(outer).annotations).toEqual({ "meta_schedule.auto_tensorize": "x" });
  });
});

describe("tensorize errors", () => {
  it("an unknown intrinsic is a usage error naming the registered ones", () => {
    const [sch, i1] = tiled(matmulNT(32), 16);
    const err = expectScheduleError(sch, () => sch.tensorize(i1, "no_such_intrin"), ScheduleUsageError, 'TensorIntrin "no_such_intrin" is not registered');
    expect(err.message).toContain(MMA_16);
  });

  it("a tile of another size names the loop, the intrinsic and the extents", () => {
    const [sch, i1] = tiled(matmulNT(32), 8);
    const err = expectScheduleError(
      sch,
      () => sch.tensorize(i1, MMA_16),
      TensorIntrinMismatchError,
      `The loop "i_1" does not match the tensor intrinsic "${MMA_16}"`,
    );
    expect((err as TensorIntrinMismatchError).detail).toContain("spans 8 elements in dimension 0 but C of the description spans 16");
  });

  it("another dtype is a buffer mismatch", () => {
    const [sch, i1] = tiled(matmulNT(32, "float16"), 16);
    const err = expectScheduleError(sch, () => sch.tensorize(i1, MMA_16), TensorIntrinMismatchError, '"i_1"');
    expect(err.message).toContain("buffer C (float16, scope global) does not match buffer C of the description (float32, scope global)");
  });

  it("another storage scope is a buffer mismatch", () => {
    const [sch, i1] = tiled(matmulNT(32), 16);
    expectScheduleError(
      sch,
      () => sch.tensorize(i1, MMA_16_SHARED_A),
      TensorIntrinMismatchError,
      "buffer A (float32, scope global) does not match buffer A of the description (float32, scope shared)",
    );
  });

  it("another operation names the first difference and where it is", () => {
    const func = matmulNT(16, "float32", "T.max(C[vi, vj], A[vi, vk] * B[vj, vk])");
    const sch = new Schedule(func);
    const [i] = sch.getLoops(sch.getBlock("update"));
    const err = expectScheduleError(sch, () => sch.tensorize(i, MMA_16), TensorIntrinMismatchError, '(at block "update")');
    expect(err.message).toContain(
      "the value stored to C: T.max(C[vi_i, vj_i], A[vi_i, vk_i] * B[vj_i, vk_i]) in the workload, C[vii, vjj] + A[vii, vkk] * B[vjj, vkk] in the description",
    );
  });

  it("transposed operands do not match", () => {
    const func = matmulNT(16, "float32", "C[vi, vj] + A[vi, vk] * B[vk, vj]");
    const sch = new Schedule(func);
    const [i] = sch.getLoops(sch.getBlock("update"));
    expectScheduleError(
      sch,
      () => sch.tensorize(i, MMA_16),
      TensorIntrinMismatchError,
      "the region of B starts at vk_i in dimension 0, which is not where B of the description starts (vjj)",
    );
  });

  it("a reduction iterator where the description has a spatial one", () => {
    const [sch] = tiled(matmulNT(32), 16);
    const loops = sch.getLoops(sch.getBlock("update"));
    // Tensorizing at k_0 puts a reduction loop into the tile's outer position.
    expectScheduleError(sch, () => sch.tensorize(loops[2], MMA_16), TensorIntrinMismatchError, "does not match the tensor intrinsic");
  });

  it("a loop with two blocks below cannot be tensorized", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi]
        with T.block("update"):
            vi = T.axis.reduce(4, i)
            C[()] = C[()] + A[vi] * B[vi]
`);
    const sch = new Schedule(func);
    const [i] = sch.getLoops(sch.getBlock("update"));
    expectScheduleError(sch, () => sch.tensorize(i, DOT_4), Error, "is required to have only one child block");
  });
});

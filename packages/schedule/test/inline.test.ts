import { assertStructuralEqual, gemmReluAdd, parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import {
  BodyAnalysisError,
  HasInitBlock,
  IncompleteBlockError,
  NonSingleProducerError,
  NotSingleReadWriteBuffer,
  OnlyLeafError,
  OpaqueAccessError,
} from "../src/error-catalogue.js";
import { Schedule, ScheduleError, StaleHandleError } from "../src/index.js";
import { expectScheduleError } from "./support.js";

const ELEMWISE = `
@T.prim_func
def elemwise(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
`;

describe("computeInline", () => {
  it("inlines B = A*2 into C = B+1 and drops B's allocation", () => {
    const sch = new Schedule(parsePrimFunc(ELEMWISE));
    const b = sch.getBlock("B");
    sch.computeInline(b);
    const expected = parsePrimFunc(`
@T.prim_func
def elemwise(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    expect(() => sch.get(b)).toThrow(StaleHandleError);
    expect(sch.trace.instructions.map((x) => x.kind.name)).toEqual(["GetBlock", "ComputeInline"]);
  });

  it("inlines relu of gemmReluAdd(16): add reads T.max(matmul, 0) + C", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    sch.computeInline(sch.getBlock("relu"));
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add"})
    matmul = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("gemm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                matmul[vi, vj] = T.float32(0)
            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(matmul[vi, vj], C[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = T.max(matmul[vi, vj], T.float32(0)) + C[vi, vj]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("inverts a bijective affine store index (placeholders ph_k)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 4), "int32"), C: T.Buffer((32,), "int32")):
    B = T.alloc_buffer((32,), "int32")
    for i, j in T.grid(8, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi * 4 + vj] = A[vi, vj] + 1
    for k in range(32):
        with T.block("C"):
            vk = T.axis.spatial(32, k)
            C[vk] = B[vk] * 3
`),
    );
    sch.computeInline(sch.getBlock("B"));
    const expected = parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 4), "int32"), C: T.Buffer((32,), "int32")):
    for k in range(32):
        with T.block("C"):
            vk = T.axis.spatial(32, k)
            T.reads(A[vk // 4, vk % 4])
            T.writes(C[vk])
            C[vk] = (A[vk // 4, vk % 4] + 1) * 3
`);
    assertStructuralEqual(sch.func, expected);
  });
});

describe("reverseComputeInline", () => {
  it("makes relu write D directly in gemmReluAdd(16)", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    const relu = sch.getBlock("relu");
    sch.reverseComputeInline(sch.getBlock("add"));
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add"})
    matmul = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("gemm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                matmul[vi, vj] = T.float32(0)
            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(matmul[vi, vj], C[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = T.max(matmul[vi, vj], T.float32(0)) + C[vi, vj]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    expect(sch.get(relu).name).toBe("relu");
  });

  it("fuses relu and add into a cache_write write-back (epilogue fusion)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    matmul = T.alloc_buffer((16, 16))
    relu = T.alloc_buffer((16, 16))
    matmul_local = T.alloc_buffer((16, 16), scope="local")
    for i_0, j_0 in T.grid(2, 2):
        for i_1, j_1, k in T.grid(8, 8, 16):
            with T.block("gemm"):
                vi = T.axis.spatial(16, i_0 * 8 + i_1)
                vj = T.axis.spatial(16, j_0 * 8 + j_1)
                vk = T.axis.reduce(16, k)
                with T.init():
                    matmul_local[vi, vj] = T.float32(0)
                matmul_local[vi, vj] = matmul_local[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(8, 8):
            with T.block("matmul_local"):
                v0 = T.axis.spatial(16, i_0 * 8 + ax0)
                v1 = T.axis.spatial(16, j_0 * 8 + ax1)
                matmul[v0, v1] = matmul_local[v0, v1]
    for i, j in T.grid(16, 16):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0))
    for i, j in T.grid(16, 16):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = relu[vi, vj] + C[vi, vj]
`),
    );
    sch.reverseComputeInline(sch.getBlock("relu"));
    sch.reverseComputeInline(sch.getBlock("add"));
    const expected = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    matmul_local = T.alloc_buffer((16, 16), scope="local")
    for i_0, j_0 in T.grid(2, 2):
        for i_1, j_1, k in T.grid(8, 8, 16):
            with T.block("gemm"):
                vi = T.axis.spatial(16, i_0 * 8 + i_1)
                vj = T.axis.spatial(16, j_0 * 8 + j_1)
                vk = T.axis.reduce(16, k)
                with T.init():
                    matmul_local[vi, vj] = T.float32(0)
                matmul_local[vi, vj] = matmul_local[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(8, 8):
            with T.block("matmul_local"):
                v0 = T.axis.spatial(16, i_0 * 8 + ax0)
                v1 = T.axis.spatial(16, j_0 * 8 + ax1)
                T.reads(matmul_local[v0, v1], C[v0, v1])
                T.writes(D[v0, v1])
                D[v0, v1] = T.max(matmul_local[v0, v1], T.float32(0)) + C[v0, v1]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("adds a predicate when the consumer covers less than the producer", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((16,), "int32"), C: T.Buffer((12,), "int32")):
    B = T.alloc_buffer((16,), "int32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + 1
    for i in range(12):
        with T.block("C"):
            vi = T.axis.spatial(12, i)
            C[vi] = B[vi] * 2
`),
    );
    sch.reverseComputeInline(sch.getBlock("C"));
    const expected = parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((16,), "int32"), C: T.Buffer((12,), "int32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            T.where(i < 12)
            T.reads(A[vi])
            T.writes(C[vi])
            C[vi] = (A[vi] + 1) * 2
`);
    assertStructuralEqual(sch.func, expected);
  });
});

describe("inline errors", () => {
  it("rejects a block with init (HasInitBlock)", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    const gemm = sch.getBlock("gemm");
    expectScheduleError(sch, () => sch.computeInline(gemm), HasInitBlock, 'The block has init statement: "gemm"');
    expectScheduleError(sch, () => sch.reverseComputeInline(gemm), HasInitBlock, "has init statement");
  });

  it("rejects an output block (OutputBlockError)", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    const add = sch.getBlock("add");
    const err = expectScheduleError(sch, () => sch.computeInline(add), ScheduleError, "the block add is an output block");
    expect(err.name).toBe("OutputBlockError");
    expect(err.message).toContain("An error occurred in the schedule primitive 'compute-inline'");
  });

  it("rejects a block writing two buffers (NotSingleReadWriteBuffer)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    B2 = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
            B2[vi] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi] + B2[vi]
`),
    );
    const blk0 = sch.getBlock("B");
    expectScheduleError(
      sch,
      () => sch.computeInline(blk0),
      NotSingleReadWriteBuffer,
      "only allowed to write a single buffer region, but it writes 2 region(s)",
    );
    const blk1 = sch.getBlock("C");
    expectScheduleError(sch, () => sch.reverseComputeInline(blk1), NotSingleReadWriteBuffer, "only allowed to read a single buffer region");
  });

  it("rejects a non-trivial store pattern (BodyAnalysisError) with TVM's message", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((16,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi // 2] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
`),
    );
    const blk2 = sch.getBlock("B");
    expectScheduleError(sch, () => sch.computeInline(blk2), BodyAnalysisError, "where the store indices mapping f on the left are bijective affine.");
  });

  it("rejects reverse inlining with different load indices (BodyAnalysisError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32"), C: T.Buffer((7,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(7):
        with T.block("C"):
            vi = T.axis.spatial(7, i)
            C[vi] = B[vi] + B[vi + 1]
`),
    );
    const blk3 = sch.getBlock("C");
    expectScheduleError(sch, () => sch.reverseComputeInline(blk3), BodyAnalysisError, "whose indices are distinct atomic variables");
  });

  it("rejects an incomplete block (IncompleteBlockError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("B2"):
            vi = T.axis.spatial(8, i)
            B[vi] = B[vi] + 1
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
`),
    );
    const blk4 = sch.getBlock("B");
    expectScheduleError(sch, () => sch.computeInline(blk4), IncompleteBlockError, 'The block "B" is not a complete block - it violates condition #2');
    const blk5 = sch.getBlock("C");
    expectScheduleError(
      sch,
      () => sch.reverseComputeInline(blk5),
      NonSingleProducerError,
      'The consumer block "B" to be inlined is required to have only a single producer block',
    );
  });

  it("rejects opaque access of the inlined buffer (OpaqueAccessError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            B_sub = T.match_buffer(B[vi:vi + 1], (1,), "int32")
            C[vi] = B_sub[0]
`),
    );
    const blk6 = sch.getBlock("B");
    expectScheduleError(sch, () => sch.computeInline(blk6), OpaqueAccessError, "opaque access (e.g. `B.data`)");
  });

  it("rejects removing the only leaf of a scope (OnlyLeafError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32")):
    for i in range(8):
        with T.block("outer"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi])
            T.writes()
            B = T.alloc_buffer((1,), "int32")
            with T.block("B"):
                vj = T.axis.spatial(1, 0)
                B[vj] = A[vi]
`),
    );
    const blk7 = sch.getBlock("B");
    expectScheduleError(sch, () => sch.computeInline(blk7), OnlyLeafError, 'Block "B" is the only leaf in the scope "outer"');
  });

  it("rejects the root block", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    const blk8 = sch.getBlock("root");
    expectScheduleError(sch, () => sch.computeInline(blk8), NotSingleReadWriteBuffer, "writes 0 region(s)");
    const err = expectScheduleError(sch, () => sch.reverseComputeInline(blk8), ScheduleError, "does not operate on the root block");
    expect(err.name).toBe("RootBlockError");
  });
});

describe("reverseComputeInline: stricter than TVM", () => {
  const SHARED_PRODUCER = `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    T0 = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("T0"):
            vi = T.axis.spatial(8, i)
            T0[vi] = A[vi] * T.float32(2)
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = T0[vi] + T.float32(1)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = T0[vi] * T.float32(3)
`;

  it("rejects a consumer whose producer has another consumer (TVM accepts it and C reads an unwritten T0)", () => {
    const sch = new Schedule(parsePrimFunc(SHARED_PRODUCER));
    const [b, c] = [sch.getBlock("B"), sch.getBlock("C")];
    expectScheduleError(sch, () => sch.reverseComputeInline(b), NonSingleProducerError, 'The consumer block "B" to be inlined');
    expectScheduleError(sch, () => sch.reverseComputeInline(c), NonSingleProducerError, 'The consumer block "C" to be inlined');
    // Once the other consumer is gone the inline goes through.
    sch.computeInline(sch.getBlock("T0"));
    expect(sch.script()).not.toContain('T.block("T0")');
  });
});

import { assertStructuralEqual, gemmReluAdd, parsePrimFunc, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { BlockRV, LoopRV, Schedule, ScheduleError, StaleHandleError } from "../src/index.js";
import {
  InvalidInsertionIndexError,
  NotAllRequiredBlocksAreVisitedError,
  NotCompleteOrReductionBlockError,
  NotInSameScopeError,
  OutputBlockError,
} from "../src/error-catalogue.js";
import { COURSE_AFTER_COMPUTE_AT_GEMM, COURSE_UNBOUND, COURSE_UNBOUND_AFTER, TWO_ELEMENTWISE_SPLIT, courseAfterCacheRead } from "./compute-at-fixtures.js";

const expectIR = (sch: Schedule, text: string) => assertStructuralEqual(sch.func, parsePrimFunc(text), { compareNames: true });

const ELEMENTWISE_HEAD = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))`;

const C_BLOCK = (indent: string) =>
  [`with T.block("C"):`, `    vi = T.axis.spatial(128, i_0 * 8 + i_1)`, `    vj = T.axis.spatial(128, j)`, `    C[vi, vj] = B[vi, vj] + T.float32(1)`]
    .map((l) => indent + l)
    .join("\n");

describe("computeAt", () => {
  it("moves a producer under the consumer's inner loop (elementwise chain)", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));
    const b = sch.getBlock("B");
    const [, i1] = sch.getLoops(sch.getBlock("C"));
    sch.computeAt(b, i1!);
    expect(sch.trace.instructions.at(-1)?.kind.name).toBe("ComputeAt");
    expectIR(
      sch,
      `${ELEMENTWISE_HEAD}
    for i_0, i_1 in T.grid(16, 8):
        for ax0 in range(128):
            with T.block("B"):
                vi = T.axis.spatial(128, i_0 * 8 + i_1)
                vj = T.axis.spatial(128, ax0)
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j in range(128):
${C_BLOCK("            ")}
`,
    );
    // The moved block keeps its handle; its old loops are gone.
    expect(sch.get(b).name).toBe("B");
    expect(sch.getLoops(b).map((l) => sch.get(l).loopVar.name)).toEqual(["i_0", "i_1", "ax0"]);
  });

  it("covers the consumer's tile when placed at an outer loop", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));
    const [i0] = sch.getLoops(sch.getBlock("C"));
    sch.computeAt(sch.getBlock("B"), i0!);
    expectIR(
      sch,
      `${ELEMENTWISE_HEAD}
    for i_0 in range(16):
        for ax0, ax1 in T.grid(8, 128):
            with T.block("B"):
                vi = T.axis.spatial(128, i_0 * 8 + ax0)
                vj = T.axis.spatial(128, ax1)
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i_1, j in T.grid(8, 128):
${C_BLOCK("            ")}
`,
    );
  });

  it("keeps unit loops with preserveUnitLoops", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));
    const [, i1] = sch.getLoops(sch.getBlock("C"));
    sch.computeAt(sch.getBlock("B"), i1!, true);
    expectIR(
      sch,
      `${ELEMENTWISE_HEAD}
    for i_0, i_1 in T.grid(16, 8):
        for ax0, ax1 in T.grid(1, 128):
            with T.block("B"):
                vi = T.axis.spatial(128, i_0 * 8 + i_1 + ax0)
                vj = T.axis.spatial(128, ax1)
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j in range(128):
${C_BLOCK("            ")}
`,
    );
  });

  it("computes every point at the innermost loop without any new loop", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));
    const [, , j] = sch.getLoops(sch.getBlock("C"));
    sch.computeAt(sch.getBlock("B"), j!);
    expectIR(
      sch,
      `${ELEMENTWISE_HEAD}
    for i_0, i_1, j in T.grid(16, 8, 128):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 8 + i_1)
            vj = T.axis.spatial(128, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)
${C_BLOCK("        ")}
`,
    );
  });

  it("adds a T.where when the needed tile may leave the buffer", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((10,), "int32"), C: T.Buffer((10,), "int32")):
    B = T.alloc_buffer((10,), "int32")
    for i in range(10):
        with T.block("B"):
            vi = T.axis.spatial(10, i)
            B[vi] = A[vi] + 1
    for i_0, i_1 in T.grid(3, 4):
        with T.block("C"):
            vi = T.axis.spatial(10, i_0 * 4 + i_1)
            T.where(i_0 * 4 + i_1 < 10)
            C[vi] = B[vi] * 2
`),
    );
    const [i0] = sch.getLoops(sch.getBlock("C"));
    sch.computeAt(sch.getBlock("B"), i0!);
    expectIR(
      sch,
      `
@T.prim_func
def main(A: T.Buffer((10,), "int32"), C: T.Buffer((10,), "int32")):
    B = T.alloc_buffer((10,), "int32")
    for i_0 in range(3):
        for ax0 in range(4):
            with T.block("B"):
                vi = T.axis.spatial(10, i_0 * 4 + ax0)
                T.where(i_0 * 4 + ax0 < 10)
                B[vi] = A[vi] + 1
        for i_1 in range(4):
            with T.block("C"):
                vi = T.axis.spatial(10, i_0 * 4 + i_1)
                T.where(i_0 * 4 + i_1 < 10)
                C[vi] = B[vi] * 2
`,
    );
  });

  it("course: a shared cache at k_0 covers the whole thread block's tile", () => {
    const sch = new Schedule(parsePrimFunc(courseAfterCacheRead("shared", true)));
    const [, , , , k0] = sch.getLoops(sch.getBlock("gemm"));
    sch.computeAt(sch.getBlock("A_shared"), k0!);
    sch.computeAt(sch.getBlock("B_shared"), k0!);
    expectIR(sch, COURSE_AFTER_COMPUTE_AT_GEMM(true, `, scope="shared"`));
  });

  it("course: without thread binding the tile comes from the loops between", () => {
    const sch = new Schedule(parsePrimFunc(COURSE_UNBOUND));
    const [, , k0] = sch.getLoops(sch.getBlock("gemm"));
    sch.computeAt(sch.getBlock("A_shared"), k0!);
    sch.computeAt(sch.getBlock("B_shared"), k0!);
    expectIR(sch, COURSE_UNBOUND_AFTER);
  });

  it("does not relax local or global caches over thread-bound loops", () => {
    for (const scope of ["local", "global"] as const) {
      const sch = new Schedule(parsePrimFunc(courseAfterCacheRead(scope, true)));
      const [, , , , k0] = sch.getLoops(sch.getBlock("gemm"));
      const a = sch.getBlock("A_shared");
      sch.computeAt(a, k0!);
      const blk = sch.get(a);
      // One row per thread: only the k_1 loop is relaxed.
      expect(sch.getLoops(a).map((l) => sch.get(l).loopVar.name)).toEqual(["i_0", "j_0", "i_1", "j_1", "k_0", "ax0"]);
      expect(blk.name).toBe("A_shared");
      expect(sch.script()).toContain("v0 = T.axis.spatial(64, i_0 * 32 + i_1)");
      expect(sch.script()).toContain("v1 = T.axis.spatial(64, k_0 * 8 + ax0)");
    }
  });

  it("honours the insertion index (-2 = right after the last producer, explicit positions)", () => {
    const text = `
@T.prim_func
def main(A: T.Buffer((8,), "int32"), D: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    C = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + 1
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi] * 3
        with T.block("D"):
            vi = T.axis.spatial(8, i)
            D[vi] = B[vi] + C[vi]
`;
    const order = (index: number) => {
      const sch = new Schedule(parsePrimFunc(text));
      const [i] = sch.getLoops(sch.getBlock("D"));
      sch.computeAt(sch.getBlock("B"), i!, false, index);
      return sch.getChildBlocks(i!).map((b) => sch.get(b).name);
    };
    expect(order(-1)).toEqual(["C", "B", "D"]);
    expect(order(-2)).toEqual(["B", "C", "D"]);
    expect(order(0)).toEqual(["B", "C", "D"]);
    expect(order(1)).toEqual(["C", "B", "D"]);
  });

  it("moves a reduction block under its consumer's loop", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    const [i] = sch.getLoops(sch.getBlock("relu"));
    sch.computeAt(sch.getBlock("gemm"), i!);
    const script = sch.script();
    expect(script).toContain("for ax0, ax1 in T.grid(16, 16):");
    expect(script).toContain('vi, vj, vk = T.axis.remap("SSR", [i, ax0, ax1])');
  });
});

describe("reverseComputeAt", () => {
  it("moves a consumer under the producer's loop", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT.replace("for i_0, i_1, j in T.grid(16, 8, 128):", "for i_0, i_1, j in T.grid(16, 8, 128):")));
    const [i] = sch.getLoops(sch.getBlock("B"));
    sch.reverseComputeAt(sch.getBlock("C"), i!);
    expectIR(
      sch,
      `${ELEMENTWISE_HEAD}
    for i in range(128):
        for j in range(128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for ax0 in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, ax0)
                C[vi, vj] = B[vi, vj] + T.float32(1)
`,
    );
  });

  it("course (naive): relu under the threadIdx loop of the GEMM", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    matmul = T.alloc_buffer((64, 64))
    for i_0 in T.thread_binding(2, thread="blockIdx.x"):
        for j_0 in T.thread_binding(2, thread="blockIdx.y"):
            for i_1 in T.thread_binding(32, thread="threadIdx.x"):
                for j_1 in T.thread_binding(32, thread="threadIdx.y"):
                    for k in range(64):
                        with T.block("gemm"):
                            vi = T.axis.spatial(64, i_0 * 32 + i_1)
                            vj = T.axis.spatial(64, j_0 * 32 + j_1)
                            vk = T.axis.reduce(64, k)
                            with T.init():
                                matmul[vi, vj] = T.float32(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(64, 64):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(matmul[vi, vj], T.float32(0))
`),
    );
    const [, , , j1] = sch.getLoops(sch.getBlock("gemm"));
    sch.reverseComputeAt(sch.getBlock("relu"), j1!);
    expectIR(
      sch,
      `
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    matmul = T.alloc_buffer((64, 64))
    for i_0 in T.thread_binding(2, thread="blockIdx.x"):
        for j_0 in T.thread_binding(2, thread="blockIdx.y"):
            for i_1 in T.thread_binding(32, thread="threadIdx.x"):
                for j_1 in T.thread_binding(32, thread="threadIdx.y"):
                    for k in range(64):
                        with T.block("gemm"):
                            vi = T.axis.spatial(64, i_0 * 32 + i_1)
                            vj = T.axis.spatial(64, j_0 * 32 + j_1)
                            vk = T.axis.reduce(64, k)
                            with T.init():
                                matmul[vi, vj] = T.float32(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
                    with T.block("relu"):
                        vi = T.axis.spatial(64, i_0 * 32 + i_1)
                        vj = T.axis.spatial(64, j_0 * 32 + j_1)
                        D[vi, vj] = T.max(matmul[vi, vj], T.float32(0))
`,
    );
  });

  it("preserves unit loops on request", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.reverseComputeAt(sch.getBlock("C"), j!, true);
    void i;
    expect(sch.script()).toContain("for ax0, ax1 in T.grid(1, 1):");
  });
});

describe("location marks", () => {
  it("LoopRV.ROOT is a no-op", () => {
    const sch = new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));
    const before = sch.func;
    sch.computeAt(sch.getBlock("B"), LoopRV.ROOT);
    expect(structuralEqual(sch.func, before)).toBe(true);
  });
});

/** Runs `f`, expects `cls`, and checks the schedule did not change. */
function expectFailure(sch: Schedule, f: () => void, cls: new (...a: never[]) => ScheduleError, message: string | RegExp): void {
  const before = sch.func;
  const traceLength = sch.trace.instructions.length;
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  expect((err as Error).message).toMatch(message);
  expect(sch.func).toBe(before);
  expect(sch.trace.instructions).toHaveLength(traceLength);
}

describe("compute-at errors", () => {
  const fresh = () => new Schedule(parsePrimFunc(TWO_ELEMENTWISE_SPLIT));

  it("RootBlockError", () => {
    const sch = fresh();
    const [i0] = sch.getLoops(sch.getBlock("C"));
    const root = sch.getBlock("root");
    expectFailure(sch, () => sch.computeAt(root, i0!), ScheduleError, /does not operate on the root block/);
  });

  it("NotInSameScopeError: the loop encloses the block", () => {
    const sch = fresh();
    const b = sch.getBlock("B");
    const [i] = sch.getLoops(b);
    expectFailure(sch, () => sch.computeAt(b, i!), NotInSameScopeError, /Expected the block B and loop i to be under the same block scope/);
  });

  it("OutputBlockError", () => {
    const sch = fresh();
    const [i] = sch.getLoops(sch.getBlock("B"));
    const c = sch.getBlock("C");
    expectFailure(sch, () => sch.computeAt(c, i!), OutputBlockError, /Cannot operate on an output block/);
  });

  it("NotAllRequiredBlocksAreVisitedError (consumers and producers)", () => {
    const text = `
@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32"), D: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + 1
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi] * 2
    for i in range(8):
        with T.block("D"):
            vi = T.axis.spatial(8, i)
            D[vi] = B[vi] * 3
`;
    const sch = new Schedule(parsePrimFunc(text));
    const [ic] = sch.getLoops(sch.getBlock("C"));
    const b = sch.getBlock("B");
    expectFailure(sch, () => sch.computeAt(b, ic!), NotAllRequiredBlocksAreVisitedError, /there are 1 consumer\(s\) not satisfying the constraint/);
    const sch2 = new Schedule(parsePrimFunc(text.replace("D[vi] = B[vi] * 3", "D[vi] = B[vi] * C[vi]")));
    const [ic2] = sch2.getLoops(sch2.getBlock("C"));
    const d = sch2.getBlock("D");
    expectFailure(sch2, () => sch2.reverseComputeAt(d, ic2!), NotAllRequiredBlocksAreVisitedError, /1 producer\(s\)/);
  });

  it("NotCompleteOrReductionBlockError", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8, 8), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i, k in T.grid(8, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            B[vi] = B[vi] + A[vi, vk]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
`),
    );
    const [i] = sch.getLoops(sch.getBlock("C"));
    const b = sch.getBlock("B");
    expectFailure(
      sch,
      () => sch.computeAt(b, i!),
      NotCompleteOrReductionBlockError,
      /not a complete block - it violates condition #1[\s\S]*not a reduction block either - it violates condition #1/,
    );
  });

  it("NotStagePipelineError (write-after-read in the scope)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
    for i in range(8):
        with T.block("B2"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] * 2
`),
    );
    const [i] = sch.getLoops(sch.getBlock("C"));
    const b = sch.getBlock("B");
    expectFailure(sch, () => sch.computeAt(b, i!), ScheduleError, /is not a stage pipeline/);
  });

  it("rejects an invalid insertion index", () => {
    const sch = fresh();
    const [, i1] = sch.getLoops(sch.getBlock("C"));
    const b = sch.getBlock("B");
    expectFailure(sch, () => sch.computeAt(b, i1!, false, 5), InvalidInsertionIndexError, /Valid index:\(-1, -2, \[0, 0\]\), current index=5/);
  });

  it("reports removed loops as stale handles", () => {
    const sch = fresh();
    const b = sch.getBlock("B");
    const [ib] = sch.getLoops(b);
    const [, i1] = sch.getLoops(sch.getBlock("C"));
    sch.computeAt(b, i1!);
    expect(() => sch.get(ib!)).toThrow(StaleHandleError);
    expect(sch.get(b)).toBeDefined();
    expect(() => sch.computeAt(new BlockRV(-5, "x"), i1!)).toThrow(StaleHandleError);
  });
});

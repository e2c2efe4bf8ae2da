import { assertStructuralEqual, gemmReluAdd, parsePrimFunc, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { NotCompactDataFlowError, UnknownThreadAxisError, WrongBlockIterTypeError } from "../src/error-catalogue.js";
import { Schedule, ScheduleUsageError } from "../src/index.js";
import { expectScheduleError, intMatmul, parse } from "./loops-fixtures.js";

const ELEMENTWISE2 = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
`;

function withLoops(outer: string, inner: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i in ${outer}:
        for j in ${inner}:
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
`;
}

describe("loop kinds", () => {
  it("parallel / vectorize / unroll / bind print as TVM does", () => {
    const cases: [(s: Schedule, i: never, j: never) => void, string, string][] = [
      [(s, i) => s.parallel(i), "T.parallel(128)", "range(128)"],
      [(s, _i, j) => s.vectorize(j), "range(128)", "T.vectorized(128)"],
      [(s, i) => s.unroll(i), "T.unroll(128)", "range(128)"],
      [(s, i) => s.bind(i, "blockIdx.x"), 'T.thread_binding(128, thread="blockIdx.x")', "range(128)"],
      [(s, _i, j) => s.bind(j, "vthread.x"), "range(128)", 'T.thread_binding(128, thread="vthread.x")'],
    ];
    for (const [op, outer, inner] of cases) {
      const sch = new Schedule(parse(ELEMENTWISE2));
      const [i, j] = sch.getLoops(sch.getBlock("B"));
      op(sch, i as never, j as never);
      assertStructuralEqual(sch.func, parse(withLoops(outer, inner)));
      expect(sch.get(i!).loopVar.name).toBe("i"); // handles stay valid
    }
  });

  it("unroll drops a thread binding; kinds keep annotations", () => {
    const sch = new Schedule(parse(ELEMENTWISE2));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.bind(i!, "threadIdx.x");
    sch.unroll(i!);
    sch.annotate(j!, "pragma_auto_unroll_max_step", 16);
    sch.vectorize(j!);
    assertStructuralEqual(sch.func, parse(withLoops("T.unroll(128)", 'T.vectorized(128, annotations={"pragma_auto_unroll_max_step": 16})')));
  });

  it("binds the course's naive GPU schedule of gemm_relu_add", () => {
    const sch = new Schedule(gemmReluAdd(64).func);
    const gemm = sch.getBlock("gemm");
    const [i, j, k] = sch.getLoops(gemm);
    const [i0, i1] = sch.split(i!, [null, 32]);
    const [j0, j1] = sch.split(j!, [null, 32]);
    sch.reorder(i0!, j0!, i1!, j1!, k!);
    sch.bind(i0!, "blockIdx.x");
    sch.bind(j0!, "blockIdx.y");
    sch.bind(i1!, "threadIdx.x");
    sch.bind(j1!, "threadIdx.y");
    const text = printTVMScript(sch.func);
    const expectedGemm = `    for i_0 in T.thread_binding(2, thread="blockIdx.x"):
        for j_0 in T.thread_binding(2, thread="blockIdx.y"):
            for i_1 in T.thread_binding(32, thread="threadIdx.x"):
                for j_1 in T.thread_binding(32, thread="threadIdx.y"):
                    for k in range(64):
                        with T.block("gemm"):
                            vi = T.axis.spatial(64, i_0 * 32 + i_1)
                            vj = T.axis.spatial(64, j_0 * 32 + j_1)
                            vk = T.axis.reduce(64, k)
                            T.reads(A[vi, vk], B[vk, vj])
                            T.writes(matmul[vi, vj])
                            with T.init():
                                matmul[vi, vj] = T.float32(0.0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
`;
    expect(text).toContain(expectedGemm);
    // The printed text parses back to the same function.
    assertStructuralEqual(parsePrimFunc(text), sch.func, { compareNames: true });
  });

  describe("errors", () => {
    it("WrongBlockIterTypeError for a reduction loop, except bind to threadIdx", () => {
      const sch = new Schedule(parse(intMatmul(8, 8, 8)));
      const [, , k] = sch.getLoops(sch.getBlock("C"));
      expectScheduleError(
        sch,
        () => sch.parallel(k!),
        WrongBlockIterTypeError,
        'The "parallel" cannot be fulfilled with regard to block C because some block iter whose block binding contains the loop var is not a data parallel block iter',
      );
      expectScheduleError(sch, () => sch.vectorize(k!), WrongBlockIterTypeError, 'The "vectorize" cannot be fulfilled');
      expectScheduleError(
        sch,
        () => sch.bind(k!, "blockIdx.x"),
        WrongBlockIterTypeError,
        'The "bind" cannot be fulfilled with regard to block C. This is because some of its block iter whose block binding contains k does not meet any of the conditions',
      );
      expectScheduleError(sch, () => sch.bind(k!, "vthread.x"), WrongBlockIterTypeError, '"bind"');
      sch.bind(k!, "threadIdx.x"); // cross-thread reduction
      expect(printTVMScript(sch.func)).toContain('for k in T.thread_binding(8, thread="threadIdx.x"):');
      sch.unroll(k!); // unroll has no checks
    });

    it("UnknownThreadAxisError", () => {
      const sch = new Schedule(parse(ELEMENTWISE2));
      const [i] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.bind(i!, "threadIdx.w"), UnknownThreadAxisError, 'Unknown thread axis "threadIdx.w"');
      expectScheduleError(sch, () => sch.bind(i!, "blockIdx"), UnknownThreadAxisError, "Unknown thread axis");
    });

    it("NotCompactDataFlowError for a block that is neither complete nor a reduction", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = B[vi] + A[vi]
`),
      );
      const [i] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(
        sch,
        () => sch.parallel(i!),
        NotCompactDataFlowError,
        "The queried subtree root loop i in SRef tree does not have compact dataflow, because its child block B",
      );
    });

    it("rejects a non-loop handle", () => {
      const sch = new Schedule(parse(ELEMENTWISE2));
      const b = sch.getBlock("B");
      expectScheduleError(sch, () => sch.parallel(b as never), ScheduleUsageError, "expected a loop handle");
    });
  });

  it("renders trace calls", () => {
    const sch = new Schedule(parse(ELEMENTWISE2));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.bind(i!, "blockIdx.x");
    sch.vectorize(j!);
    const [bind, vec] = sch.trace.instructions.slice(-2);
    expect(bind!.kind.formatArgs(["l1"], bind!.attrs, undefined)).toBe('l1, "blockIdx.x"');
    expect(vec!.kind.formatArgs(["l2"], vec!.attrs, undefined)).toBe("l2");
  });
});

import { assertStructuralEqual, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import {
  DependentLoopError,
  HasAnnotationOrThreadBindingError,
  LoopNotStartWithZeroError,
  NotOnlyChildError,
  OuterNotInnerParent,
} from "../src/error-catalogue.js";
import { Schedule, StaleHandleError } from "../src/index.js";
import { ELEMENTWISE, expectScheduleError, parse } from "./loops-fixtures.js";

const names = { compareNames: true };

describe("fuse", () => {
  it("fuses three loops into i_j_k_fused (TVM test_fuse)", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i, j, k] = sch.getLoops(sch.getBlock("B"));
    const fused = sch.fuse(i!, j!, k!);
    expect(sch.get(fused).loopVar.name).toBe("i_j_k_fused");
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_j_k_fused in range(2097152):
        with T.block("B"):
            vi = T.axis.spatial(128, i_j_k_fused // 16384)
            vj = T.axis.spatial(128, i_j_k_fused % 16384 // 128)
            vk = T.axis.spatial(128, i_j_k_fused % 128)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), names);
    for (const old of [i, j, k]) expect(() => sch.get(old!)).toThrow(StaleHandleError);
  });

  it("fuses two inner loops", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [, j, k] = sch.getLoops(sch.getBlock("B"));
    sch.fuse(j!, k!);
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i, j_k_fused in T.grid(128, 16384):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            vj = T.axis.spatial(128, j_k_fused // 128)
            vk = T.axis.spatial(128, j_k_fused % 128)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), names);
  });

  it("substitutes into opaque accesses without simplifying them", () => {
    const sch = new Schedule(
      parse(`
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("opaque"):
            T.reads(A[i, j])
            T.writes(B[i, j])
            B[i, j] = A[i, j]
`),
    );
    const [i, j] = sch.getLoops(sch.getBlock("opaque"));
    sch.fuse(i!, j!);
    const text = printTVMScript(sch.func);
    expect(text).toContain("for i_j_fused in range(256):");
    expect(text).toContain("B[i_j_fused // 16, i_j_fused % 16] = A[i_j_fused // 16, i_j_fused % 16]");
  });

  it("fuses a split back, mapping unit loops to 0", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i] = sch.getLoops(sch.getBlock("B"));
    const [a, b, c] = sch.split(i!, [2, 1, 64]);
    sch.fuse(a!, b!, c!);
    const text = printTVMScript(sch.func);
    expect(text).toContain("for i_0_i_1_i_2_fused, j, k in T.grid(128, 128, 128):");
    expect(text).toContain('vi, vj, vk = T.axis.remap("SSS", [i_0_i_1_i_2_fused, j, k])');
  });

  describe("errors", () => {
    const TWO_NESTS = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    C = T.alloc_buffer((128, 128, 128))
    for i, j in T.grid(128, 128):
        for k in range(128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
        for k in range(128):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = C[vi, vj, vk] * T.float32(2.0)
`;
    it("NotOnlyChildError", () => {
      const sch = new Schedule(parse(TWO_NESTS));
      const [, j, k] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(
        sch,
        () => sch.fuse(j!, k!),
        NotOnlyChildError,
        "The loops can't be fused because the inner loop k is not the only child of outer loop j.",
      );
    });

    it("OuterNotInnerParent", () => {
      const sch = new Schedule(parse(ELEMENTWISE));
      const [i, j, k] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(
        sch,
        () => sch.fuse(i!, k!),
        OuterNotInnerParent,
        "The loops can't be fused because the outer loop i is not the parent of the inner loop k",
      );
      expectScheduleError(sch, () => sch.fuse(j!, i!), OuterNotInnerParent, "outer loop j is not the parent of the inner loop i");
    });

    it("HasAnnotationOrThreadBindingError and LoopNotStartWithZeroError", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i in range(128):
        for j in T.serial(128, annotations={"pragma": 1}):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
    for i in range(128):
        for j in T.serial(10, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
`),
      );
      const [i, j] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.fuse(i!, j!), HasAnnotationOrThreadBindingError, "loop j has annotation or thread binding");
      const [i2, j2] = sch.getLoops(sch.getBlock("C"));
      expectScheduleError(sch, () => sch.fuse(i2!, j2!), LoopNotStartWithZeroError, "The loop j does not start with 0");
    });

    it("DependentLoopError", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i in range(128):
        for j in range(i):
            with T.block("B"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                B[vi, vj] = A[vi, vj]
`),
      );
      const [i, j] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.fuse(i!, j!), DependentLoopError, "A loop j's `extent` is dependent on another loop i");
    });
  });

  it("renders the trace call", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.fuse(i!, j!);
    const inst = sch.trace.instructions.at(-1)!;
    expect(inst.kind.name).toBe("Fuse");
    expect(inst.attrs).toEqual([true]);
    expect(inst.kind.formatArgs(["l1", "l2"], inst.attrs, undefined)).toBe("l1, l2");
  });
});

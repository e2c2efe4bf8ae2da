import { assertStructuralEqual, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import {
  HasAnnotationOrThreadBindingError,
  LoopNotStartWithZeroError,
  NonPositiveFactorError,
  NotSingleInferFactorError,
  WrongFactorError,
} from "../src/error-catalogue.js";
import { Schedule, ScheduleUsageError, StaleHandleError } from "../src/index.js";
import { ELEMENTWISE, VECTOR_100, expectScheduleError, parse } from "./loops-fixtures.js";

const names = { compareNames: true };

describe("split", () => {
  it("splits divisible loops, keeping unit loops in the bindings (TVM test_split)", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i, j, k] = sch.getLoops(sch.getBlock("B"));
    const outs = sch.split(i!, [2, 1, 64]);
    sch.split(j!, [4, 32]);
    sch.split(k!, [16, 8]);
    expect(outs.map((l) => sch.get(l).loopVar.name)).toEqual(["i_0", "i_1", "i_2"]);
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_0, i_1, i_2, j_0, j_1, k_0, k_1 in T.grid(2, 1, 64, 4, 32, 16, 8):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 64 + i_1 * 64 + i_2)
            vj = T.axis.spatial(128, j_0 * 32 + j_1)
            vk = T.axis.spatial(128, k_0 * 8 + k_1)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), names);
  });

  it("infers the missing factor (TVM test_split_with_inferred_factor)", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i, j, k] = sch.getLoops(sch.getBlock("B"));
    sch.split(i!, [null, 1, 64]);
    sch.split(j!, [2, null, 64]);
    sch.split(k!, [2, 1, undefined]);
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_0, i_1, i_2, j_0, j_1, j_2, k_0, k_1, k_2 in T.grid(2, 1, 64, 2, 1, 64, 2, 1, 64):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 64 + i_1 * 64 + i_2)
            vj = T.axis.spatial(128, j_0 * 64 + j_1 * 64 + j_2)
            vk = T.axis.spatial(128, k_0 * 64 + k_1 * 64 + k_2)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), names);
  });

  it("drops unit loops from the bindings without preserveUnitIters", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i] = sch.getLoops(sch.getBlock("B"));
    sch.split(i!, [2, 1, 64], { preserveUnitIters: false });
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_0, i_1, i_2, j, k in T.grid(2, 1, 64, 128, 128):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 64 + i_2)
            vj, vk = T.axis.remap("SS", [j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), names);
  });

  it("guards a non-divisible split with T.where (TVM test_split_with_predicate)", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i, j, k] = sch.getLoops(sch.getBlock("B"));
    sch.split(i!, [1000, 2, 3]);
    sch.split(j!, [null, 129]);
    sch.split(k!, [3, null]);
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_0, i_1, i_2, j_0, j_1, k_0, k_1 in T.grid(1000, 2, 3, 1, 129, 3, 43):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 6 + i_1 * 3 + i_2)
            vj = T.axis.spatial(128, j_0 * 129 + j_1)
            vk = T.axis.spatial(128, k_0 * 43 + k_1)
            T.where((i_0 * 2 + i_1) * 3 + i_2 < 128 and j_0 * 129 + j_1 < 128 and k_0 * 43 + k_1 < 128)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), names);
  });

  it("prints a 1-D non-divisible split as TVM does", () => {
    const sch = new Schedule(parse(VECTOR_100));
    const [i] = sch.getLoops(sch.getBlock("B"));
    sch.split(i!, [null, 32]);
    const text = printTVMScript(sch.func);
    expect(text).toContain("for i_0, i_1 in T.grid(4, 32):");
    expect(text).toContain("vi = T.axis.spatial(100, i_0 * 32 + i_1)");
    expect(text).toContain("T.where(i_0 * 32 + i_1 < 100)");
  });

  it("omits the guard with disablePredication", () => {
    const sch = new Schedule(parse(VECTOR_100));
    const [i] = sch.getLoops(sch.getBlock("B"));
    sch.split(i!, [4, 32], { disablePredication: true });
    expect(printTVMScript(sch.func)).not.toContain("T.where");
  });

  it("accepts sampled factors and makes the old loop handle stale", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i] = sch.getLoops(sch.getBlock("B"));
    const [f0, f1] = sch.samplePerfectTile(i!, 2, 16, [16, 8]);
    const [a, b] = sch.split(i!, [f0!, f1!]);
    expect(sch.get(a!).extent).toMatchObject({ value: 16 });
    expect(sch.get(b!).extent).toMatchObject({ value: 8 });
    expect(() => sch.get(i!)).toThrow(StaleHandleError);
  });

  it("splits a loop above several blocks and keeps the blocks' handles", () => {
    const sch = new Schedule(
      parse(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1.0)
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = B[vi] * T.float32(2.0)
`),
    );
    const blockC = sch.getBlock("C");
    const [i] = sch.getLoops(blockC);
    sch.split(i!, [null, 10]);
    expect(sch.get(blockC).name).toBe("C");
    const text = printTVMScript(sch.func);
    expect(text.match(/T\.where\(i_0 \* 10 \+ i_1 < 64\)/g)).toHaveLength(2);
  });

  describe("errors", () => {
    it("NotSingleInferFactorError", () => {
      const sch = new Schedule(parse(ELEMENTWISE));
      const [i] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.split(i!, [null, null]), NotSingleInferFactorError, "Only one factor can be specified as -1 or none");
    });

    it("NonPositiveFactorError", () => {
      const sch = new Schedule(parse(ELEMENTWISE));
      const [i] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(
        sch,
        () => sch.split(i!, [null, 0]),
        NonPositiveFactorError,
        "All the constant factors are required to be positive. However, the factor at position 1 is 0",
      );
      expectScheduleError(sch, () => sch.split(i!, [-2, 64]), NonPositiveFactorError, "position 0 is -2");
    });

    it("WrongFactorError", () => {
      const sch = new Schedule(parse(ELEMENTWISE));
      const [i] = sch.getLoops(sch.getBlock("B"));
      const err = expectScheduleError(
        sch,
        () => sch.split(i!, [2, 32]),
        WrongFactorError,
        "The product of factors is not larger than or equal to the extent of loop i",
      );
      expect(err.message).toContain("An error occurred in the schedule primitive 'split'");
    });

    it("HasAnnotationOrThreadBindingError", () => {
      const text = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i in range(128):
        for j in T.serial(128, annotations={"useless_annotation": True}):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
    for i in T.thread_binding(128, thread="threadIdx.x"):
        for j in range(128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
`;
      const sch = new Schedule(parse(text));
      const [, j] = sch.getLoops(sch.getBlock("B"));
      const [t] = sch.getLoops(sch.getBlock("C"));
      const rule = "The primitive can't be applied because the loop j has annotation or thread binding";
      expectScheduleError(sch, () => sch.split(j!, [4, 32]), HasAnnotationOrThreadBindingError, rule);
      expectScheduleError(sch, () => sch.split(t!, [4, 32]), HasAnnotationOrThreadBindingError, "loop i has annotation");
    });

    it("LoopNotStartWithZeroError", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in T.serial(10, 128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
`),
      );
      const [i] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.split(i!, [null, 2]), LoopNotStartWithZeroError, "The loop i does not start with 0, which is not supported");
    });

    it("rejects bad factor values as usage errors", () => {
      const sch = new Schedule(parse(ELEMENTWISE));
      const [i] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.split(i!, [2.5, null]), ScheduleUsageError, "must be an integer");
      expectScheduleError(sch, () => sch.split(i!, []), ScheduleUsageError, "at least one factor");
    });
  });

  it("renders the trace call", () => {
    const sch = new Schedule(parse(ELEMENTWISE));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.split(i!, [null, 32]);
    sch.split(j!, [4, 32], { preserveUnitIters: false });
    const [splitA, splitB] = sch.trace.instructions.slice(-2);
    expect(
      splitA!.kind.formatArgs(
        ["l1", "None_", "32"].map((x) => (x === "None_" ? "null" : x)),
        splitA!.attrs,
        undefined,
      ),
    ).toBe("l1, [null, 32]");
    expect(splitB!.kind.formatArgs(["l2", "4", "32"], splitB!.attrs, undefined)).toBe("l2, [4, 32], { preserveUnitIters: false, disablePredication: false }");
  });
});

/**
 * blockize: the outer block's iterators, bindings, regions and init as TVM builds them (cases
 * modelled on TVM's blockize tests, written here as before/after pairs), and its error cases.
 */
import { assertStructuralEqual, parsePrimFunc, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { BlockizeBlocksError, NonSingleChildBlockError, SubspaceNotDivisibleError } from "../../src/error-catalogue.js";
import { Schedule, ScheduleUsageError } from "../../src/index.js";
import { intMatmul } from "../loops-fixtures.js";
import { expectScheduleError, runBoth } from "../support.js";

const ELEMENTWISE = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
`);

function blockized(func: typeof ELEMENTWISE, block: string, loop: number, opts?: { preserveUnitIters?: boolean }): Schedule {
  const sch = new Schedule(func, { debugMask: "all" });
  sch.blockize(sch.getLoops(sch.getBlock(block))[loop], opts);
  return sch;
}

describe("blockize", () => {
  it("at the outermost loop: one outer block with unit iterators", () => {
    const sch = blockized(ELEMENTWISE, "B", 0);
    assertStructuralEqual(
      sch.func,
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    with T.block("B_o"):
        vi_o = T.axis.spatial(1, 0)
        vj_o = T.axis.spatial(1, 0)
        T.reads(A[0:128, 0:128])
        T.writes(B[0:128, 0:128])
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi_i, vj_i = T.axis.remap("SS", [i, j])
                B[vi_i, vj_i] = A[vi_i, vj_i] * T.float32(2)
`),
    );
  });

  it("at an inner loop: outer iterators bound to the loops above", () => {
    const sch = blockized(ELEMENTWISE, "B", 1);
    assertStructuralEqual(
      sch.func,
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i in range(128):
        with T.block("B_o"):
            vi_o = T.axis.spatial(128, i)
            vj_o = T.axis.spatial(1, 0)
            T.reads(A[vi_o, 0:128])
            T.writes(B[vi_o, 0:128])
            for j in range(128):
                with T.block("B"):
                    vj_i = T.axis.spatial(128, j)
                    B[vi_o, vj_i] = A[vi_o, vj_i] * T.float32(2)
`),
    );
  });

  it("splits mixed bindings into outer * extent + inner", () => {
    const sch = new Schedule(ELEMENTWISE, { debugMask: "all" });
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    const [i0, i1] = sch.split(i, [null, 16]);
    const [j0, j1] = sch.split(j, [null, 16]);
    sch.reorder(i0, j0, i1, j1);
    const outer = sch.blockize(i1);
    expect(sch.get(outer).name).toBe("B_o");
    assertStructuralEqual(
      sch.func,
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i_0, j_0 in T.grid(8, 8):
        with T.block("B_o"):
            vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
            T.reads(A[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
            T.writes(B[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
            for i_1, j_1 in T.grid(16, 16):
                with T.block("B"):
                    vi_i, vj_i = T.axis.remap("SS", [i_1, j_1])
                    B[vi_o * 16 + vi_i, vj_o * 16 + vj_i] = A[vi_o * 16 + vi_i, vj_o * 16 + vj_i] * T.float32(2)
`),
    );
    // The handles of the inner block and loops still work.
    expect(sch.get(sch.getBlock("B")).iterVars.map((iv) => iv.var.name)).toEqual(["vi_i", "vj_i"]);
    expect(sch.get(i1).extent).toMatchObject({ value: 16 });
  });

  it("divides bindings whose outer part is a fused loop split again (regression: refused)", () => {
    const sch = new Schedule(ELEMENTWISE, { debugMask: "all" });
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    const [i0, i1] = sch.split(i, [null, 16]);
    const [j0, j1] = sch.split(j, [null, 16]);
    sch.reorder(i0, j0, i1, j1);
    sch.fuse(i0, j0);
    expect(sch.get(sch.blockize(i1)).iterVars.map((iv) => iv.dom.extent)).toMatchObject([{ value: 8 }, { value: 8 }]);
    expect(printTVMScript(sch.func)).toContain("vi_o = T.axis.spatial(8, i_0_j_0_fused // 8)");
    const [before, after] = runBoth(ELEMENTWISE, sch.func, 6);
    expect(after).toEqual(before);
  });

  it("moves a reduction's init into the outer block's init, over copies of the loops it needs", () => {
    const rowsum = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    for k, i in T.grid(128, 128):
        with T.block("B"):
            vk, vi = T.axis.remap("RS", [k, i])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
`);
    const sch = blockized(rowsum, "B", 0);
    assertStructuralEqual(
      sch.func,
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    with T.block("B_o"):
        vk_o = T.axis.reduce(1, 0)
        vi_o = T.axis.spatial(1, 0)
        T.reads(A[0:128, 0:128])
        T.writes(B[0:128])
        with T.init():
            for i in range(128):
                with T.block("B_init"):
                    vi_init = T.axis.spatial(128, i)
                    T.reads()
                    T.writes(B[vi_init])
                    B[vi_init] = T.float32(0)
        for k, i in T.grid(128, 128):
            with T.block("B"):
                vk_i, vi_i = T.axis.remap("RS", [k, i])
                T.reads(B[vi_i], A[vi_i, vk_i])
                T.writes(B[vi_i])
                B[vi_i] = B[vi_i] + A[vi_i, vk_i]
`),
    );
    const [before, after] = runBoth(rowsum, sch.func, 3);
    expect(after).toEqual(before);
  });

  it("with an outer reduction iterator, the inner block also reads what it writes", () => {
    // Blocks with an init do not list the buffer they reduce into among their reads; the inner
    // block, which loses the init, must.
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64,), "float32")):
    for i, k in T.grid(64, 64):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
`),
      { debugMask: "all" },
    );
    const [, k] = sch.getLoops(sch.getBlock("B"));
    const [, k1] = sch.split(k, [null, 8]);
    sch.blockize(k1);
    const inner = sch.get(sch.getBlock("B"));
    expect(inner.init).toBeUndefined();
    expect(inner.reads.map((r) => r.buffer.name)).toEqual(["B", "A"]);
    expect(sch.get(sch.getBlock("B_o")).reads.map((r) => r.buffer.name)).toEqual(["A"]);
  });

  it("copies the loops of the predicate into the outer init (regression: the init referred to loops outside it)", () => {
    const func = parsePrimFunc(intMatmul(12, 8, 6));
    const sch = new Schedule(func, { debugMask: "all" });
    const [, , k] = sch.getLoops(sch.getBlock("C"));
    sch.split(k, [null, 4]);
    sch.blockize(sch.getLoops(sch.getBlock("C"))[0]);
    const [before, after] = runBoth(func, sch.func, 2);
    expect(after).toEqual(before);
  });

  it("keeps or drops unit iterators as preserveUnitIters says", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16, 128), "float32")):
    for i0, j0, i1, j1 in T.grid(1, 8, 16, 16):
        with T.block("B"):
            vi = T.axis.spatial(16, i0 * 16 + i1)
            vj = T.axis.spatial(128, j0 * 16 + j1)
            B[vi, vj] = A[vi, vj] + T.float32(1)
`);
    const expected = (viBinding: string) =>
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16, 128), "float32")):
    for i0, j0 in T.grid(1, 8):
        with T.block("B_o"):
            vi_o = T.axis.spatial(1, ${viBinding})
            vj_o = T.axis.spatial(8, j0)
            T.reads(A[0:16, vj_o * 16:vj_o * 16 + 16])
            T.writes(B[0:16, vj_o * 16:vj_o * 16 + 16])
            for i1, j1 in T.grid(16, 16):
                with T.block("B"):
                    vi_i, vj_i = T.axis.remap("SS", [i1, j1])
                    B[vi_i, vj_o * 16 + vj_i] = A[vi_i, vj_o * 16 + vj_i] + T.float32(1)
`);
    assertStructuralEqual(blockized(func, "B", 2).func, expected("i0"));
    assertStructuralEqual(blockized(func, "B", 2, { preserveUnitIters: false }).func, expected("0"));
  });

  it("divides the predicate of a non-divisible split when each conjunct is on one side", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((100, 64), "float32"), B: T.Buffer((100, 64), "float32")):
    for i, j in T.grid(100, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
`);
    const sch = new Schedule(func, { debugMask: "all" });
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.split(i, [null, 16]);
    const [, j1] = sch.split(j, [null, 16]);
    sch.blockize(j1);
    const outer = sch.get(sch.getBlock("B_o"));
    expect(outer.iterVars.map((iv) => iv.var.name)).toEqual(["vi_o", "vj_o"]);
    const [before, after] = runBoth(func, sch.func, 5);
    expect(after).toEqual(before);
  });
});

describe("blockize errors", () => {
  it("rejects a loop with two blocks below (NonSingleChildBlockError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[vi]
`),
    );
    const [i] = sch.getLoops(sch.getBlock("B"));
    expectScheduleError(sch, () => sch.blockize(i), NonSingleChildBlockError, 'The loop "i" is required to have only one child block');
  });

  it("rejects bindings where the inner loop is the high digit (SubspaceNotDivisibleError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i0, i1 in T.grid(8, 16):
        with T.block("B"):
            vi = T.axis.spatial(128, i1 * 8 + i0)
            B[vi] = A[vi]
`),
    );
    const [, i1] = sch.getLoops(sch.getBlock("B"));
    expectScheduleError(
      sch,
      () => sch.blockize(i1),
      SubspaceNotDivisibleError,
      'The bindings of the inner block "B" can not be blockized by the loops starting at "i1".',
    );
  });

  it("rejects a predicate that mixes outer and inner loops", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i in range(100):
        with T.block("B"):
            vi = T.axis.spatial(100, i)
            B[vi] = A[vi]
`),
    );
    const [, i1] = sch.split(sch.getLoops(sch.getBlock("B"))[0], [null, 16]);
    expectScheduleError(sch, () => sch.blockize(i1), SubspaceNotDivisibleError, "can not be blockized");
  });

  it("names an undefined loop argument", () => {
    const sch = new Schedule(ELEMENTWISE);
    expect(() => sch.blockize(undefined)).toThrow(ScheduleUsageError);
    expect(() => sch.blockize(undefined)).toThrow("argument `target` is undefined");
  });
});

describe("blockize of several blocks", () => {
  const TWO_STAGES = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for m in range(6):
        for i, j in T.grid(3, 1):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(128, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj + 64] = A[vi, vj + 64] * T.float32(3)
`);

  it("wraps consecutive sibling statements into one block outer_<names>_", () => {
    const sch = new Schedule(TWO_STAGES, { debugMask: "all" });
    const outer = sch.blockize([sch.getBlock("B"), sch.getBlock("C")], { preserveUnitIters: false });
    assertStructuralEqual(
      sch.func,
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for m in range(6):
        with T.block("outer_B_C_"):
            vi_o = T.axis.spatial(1, 0)
            vj_o = T.axis.spatial(1, 0)
            T.reads(A[0:128, 0:128])
            T.writes(B[0:128, 0:128])
            for i, j in T.grid(3, 1):
                with T.block("B"):
                    vi_i = T.axis.spatial(3, i)
                    B[vi_i, 0] = A[vi_i, 0] * T.float32(2)
            for i, j in T.grid(128, 64):
                with T.block("C"):
                    vi_i, vj_i = T.axis.remap("SS", [i, j])
                    B[vi_i, vj_i + 64] = A[vi_i, vj_i + 64] * T.float32(3)
`),
    );
    expect(sch.get(outer).name).toBe("outer_B_C_");
    expect(sch.trace.show()).toContain("sch.blockize([b0, b1], { preserveUnitIters: false })");
    const [before, after] = runBoth(TWO_STAGES, sch.func, 1);
    expect(after).toEqual(before);
  });

  it("wraps a single block in place, all loops outer (TVM fails on one block)", () => {
    const sch = new Schedule(ELEMENTWISE, { debugMask: "all" });
    const outer = sch.blockize([sch.getBlock("B")]);
    const blk = sch.get(outer);
    expect(blk.name).toBe("outer_B_");
    expect(blk.iterVars.map((iv) => [iv.var.name, iv.dom.extent])).toMatchObject([
      ["vi_o", { value: 128 }],
      ["vj_o", { value: 128 }],
    ]);
    expect(sch.get(sch.getBlock("B")).iterVars).toEqual([]);
    const [before, after] = runBoth(ELEMENTWISE, sch.func, 4);
    expect(after).toEqual(before);
  });

  it("rejects blocks that are not consecutive statements", () => {
    // Three sibling copy loops A -> B, A -> C, A -> D.
    const copy = (b: string) => `
    for i in range(8):
        with T.block("${b}"):
            vi = T.axis.spatial(8, i)
            ${b}[vi] = A[vi]`;
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):${["B", "C", "D"].map(copy).join("")}
`);
    const sch = new Schedule(func);
    const [b, d] = [sch.getBlock("B"), sch.getBlock("D")];
    expectScheduleError(
      sch,
      () => sch.blockize([b, d]),
      BlockizeBlocksError,
      'Cannot blockize the blocks "B", "D" together: they must be consecutive statements.',
    );
    const outer = sch.blockize(["C", "B"]);
    expect(sch.get(outer).name).toBe("outer_B_C_");
    const [before, after] = runBoth(func, sch.func, 1);
    expect(after).toEqual(before);
  });
});

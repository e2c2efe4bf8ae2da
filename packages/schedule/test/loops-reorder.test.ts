import { assertStructuralEqual, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { BlockPropertyError, DependentLoopError, LoopMultiAppearanceError, LoopsNotAChainError } from "../src/error-catalogue.js";
import { Schedule } from "../src/index.js";
import { expectScheduleError, parse } from "./loops-fixtures.js";

const names = { compareNames: true };

const ELEMENTWISE4 = `
@T.prim_func
def main(A: T.Buffer((8, 8, 8, 8), "float32"), B: T.Buffer((8, 8, 8, 8), "float32")):
    for i, j, k, l in T.grid(8, 8, 8, 8):
        with T.block("B"):
            vi, vj, vk, vl = T.axis.remap("SSSS", [i, j, k, l])
            B[vi, vj, vk, vl] = A[vi, vj, vk, vl] * T.float32(2.0)
`;

function reordered(order: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((8, 8, 8, 8), "float32"), B: T.Buffer((8, 8, 8, 8), "float32")):
    for ${order} in T.grid(8, 8, 8, 8):
        with T.block("B"):
            vi, vj, vk, vl = T.axis.remap("SSSS", [i, j, k, l])
            B[vi, vj, vk, vl] = A[vi, vj, vk, vl] * T.float32(2.0)
`;
}

describe("reorder", () => {
  it("swaps the ends of a chain (TVM test_reorder)", () => {
    const sch = new Schedule(parse(ELEMENTWISE4));
    const [i, j, k, l] = sch.getLoops(sch.getBlock("B"));
    sch.reorder(l!, i!);
    assertStructuralEqual(sch.func, parse(reordered("l, j, k, i")), names);
    // Handles follow their loops.
    expect([i, j, k, l].map((x) => sch.get(x!).loopVar.name)).toEqual(["i", "j", "k", "l"]);
    expect(sch.getLoops(sch.getBlock("B")).map((x) => sch.get(x).loopVar.name)).toEqual(["l", "j", "k", "i"]);
  });

  it("permutes a partial selection, leaving unlisted loops in place (TVM test_reorder2)", () => {
    const sch = new Schedule(parse(ELEMENTWISE4));
    const [i, , k, l] = sch.getLoops(sch.getBlock("B"));
    sch.reorder(k!, i!, l!);
    assertStructuralEqual(sch.func, parse(reordered("k, j, i, l")), names);
  });

  it("keeps loop kinds and annotations", () => {
    const sch = new Schedule(parse(ELEMENTWISE4));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    sch.annotate(i!, "pragma_x", 1);
    sch.parallel(j!);
    sch.reorder(j!, i!);
    const text = printTVMScript(sch.func);
    expect(text).toMatch(/for j in T\.parallel\(8\):\n\s+for i in T\.serial\(8, annotations=\{"pragma_x": 1\}\):/);
  });

  it("reorders split loops into a tile (with a reduction block)", () => {
    const sch = new Schedule(
      parse(`
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`),
    );
    const [i, j, k] = sch.getLoops(sch.getBlock("C"));
    const [i0, i1] = sch.split(i!, [null, 16]);
    const [j0, j1] = sch.split(j!, [null, 16]);
    sch.reorder(i0!, j0!, k!, i1!, j1!);
    const text = printTVMScript(sch.func);
    expect(text).toContain("for i_0, j_0, k, i_1, j_1 in T.grid(4, 4, 64, 16, 16):");
    expect(text).toContain("vi = T.axis.spatial(64, i_0 * 16 + i_1)");
    expect(text).toContain("vk = T.axis.reduce(64, k)");
  });

  describe("errors", () => {
    it("LoopMultiAppearanceError", () => {
      const sch = new Schedule(parse(ELEMENTWISE4));
      const [i, , k] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.reorder(k!, i!, i!), LoopMultiAppearanceError, "Loop i appears in the input array for multiple times.");
    });

    const NON_SINGLE_BRANCH = `
@T.prim_func
def main(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    C = T.alloc_buffer((16, 16, 16))
    for i, j in T.grid(16, 16):
        for k in range(16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
        for k in range(16):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = C[vi, vj, vk] * T.float32(2.0)
`;
    it("LoopsNotAChainError: a branch in between", () => {
      const sch = new Schedule(parse(NON_SINGLE_BRANCH));
      const [i, , k1] = sch.getLoops(sch.getBlock("B"));
      const [, , k2] = sch.getLoops(sch.getBlock("C"));
      const rule = "The loops are not in a chain because there is a non-single-branch stmt in between. Problematic stmt: loop j";
      expectScheduleError(sch, () => sch.reorder(k1!, i!), LoopsNotAChainError, rule);
      expectScheduleError(sch, () => sch.reorder(k1!, i!, k2!), LoopsNotAChainError, "non-single-branch");
    });

    it("LoopsNotAChainError: different scopes", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj, 0:16])
            T.writes(B[vi, vj, 0:16])
            for k in range(16):
                with T.block("B"):
                    vk = T.axis.spatial(16, k)
                    B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`),
      );
      const [i] = sch.getLoops(sch.getBlock("A"));
      const [k] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(sch, () => sch.reorder(k!, i!), LoopsNotAChainError, "they are not under the same scope.");
    });

    it("BlockPropertyError: iterator type", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            vk = T.axis.scan(16, k)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`),
      );
      const [i, , k] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(
        sch,
        () => sch.reorder(k!, i!),
        BlockPropertyError,
        "The block B under the loops to be reordered have block iter type other than data-parallel or reduction",
      );
    });

    it("BlockPropertyError: non-affine binding, but a partial reorder below it is fine", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((14, 4), "float32"), B: T.Buffer((14, 4), "float32")):
    for v0, v1, v2 in T.grid(6, 4, 4):
        with T.block("block"):
            i = T.axis.spatial(14, v0 * v0 + v1)
            j = T.axis.spatial(4, v2)
            B[i, j] = A[i, j] + T.float32(1.0)
`),
      );
      const [v0, v1, v2] = sch.getLoops(sch.getBlock("block"));
      expectScheduleError(sch, () => sch.reorder(v0!, v2!, v1!), BlockPropertyError, "The block block is required to have an affine binding");
      sch.reorder(v2!, v1!);
      expect(printTVMScript(sch.func)).toContain("for v0, v2, v1 in T.grid(6, 4, 4):");
    });

    it("DependentLoopError", () => {
      const sch = new Schedule(
        parse(`
@T.prim_func
def main(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    for i in range(16):
        for j in range(i):
            for k in range(16):
                with T.block("B"):
                    B[i, j, k] = A[i, j, k] * T.float32(2.0)
`),
      );
      const [i, j] = sch.getLoops(sch.getBlock("B"));
      expectScheduleError(
        sch,
        () => sch.reorder(j!, i!),
        DependentLoopError,
        "Outer Loop j's `min` or `extent` is dependent on an inner loop i in the new order",
      );
    });
  });

  it("renders the trace call and accepts a single loop as a no-op", () => {
    const sch = new Schedule(parse(ELEMENTWISE4));
    const [i, j] = sch.getLoops(sch.getBlock("B"));
    const before = sch.func;
    sch.reorder(i!);
    expect(sch.func).toBe(before);
    sch.reorder(j!, i!);
    const inst = sch.trace.instructions.at(-1)!;
    expect(inst.kind.formatArgs(["l2", "l1"], inst.attrs, undefined)).toBe("l2, l1");
  });
});

import { assertStructuralEqual, parsePrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoopHeightError, LoopPositionError, NotReductionBlockError } from "../src/error-catalogue.js";
import { Schedule } from "../src/index.js";
import { expectScheduleError, runBoth } from "./support.js";

const MATMUL = `
@T.prim_func
def matmul(A: T.Buffer((16, 16), "int32"), B: T.Buffer((16, 16), "int32"), C: T.Buffer((16, 16), "int32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;

describe("decomposeReduction", () => {
  it("at the k loop: init block under i, j, update renamed, original handle kept", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const update = sch.getBlock("update");
    const [, , k] = sch.getLoops(update);
    const init = sch.decomposeReduction(update, k!);
    expect(sch.get(init).name).toBe("update_init");
    expect(sch.get(update).name).toBe("update_update");
    const expected = parsePrimFunc(`
@T.prim_func
def matmul(A: T.Buffer((16, 16), "int32"), B: T.Buffer((16, 16), "int32"), C: T.Buffer((16, 16), "int32")):
    for i, j in T.grid(16, 16):
        with T.block("update_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = 0
        for k in range(16):
            with T.block("update_update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
  });

  it("at the outer i loop: init nest of copied loops i_init, j_init before i", () => {
    const sch = new Schedule(parsePrimFunc(MATMUL));
    const update = sch.getBlock("update");
    const [i, j] = sch.getLoops(update);
    sch.decomposeReduction(update, i!);
    const expected = parsePrimFunc(`
@T.prim_func
def matmul(A: T.Buffer((16, 16), "int32"), B: T.Buffer((16, 16), "int32"), C: T.Buffer((16, 16), "int32")):
    for i_init, j_init in T.grid(16, 16):
        with T.block("update_init"):
            vi, vj = T.axis.remap("SS", [i_init, j_init])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = 0
    for i, j, k in T.grid(16, 16, 16):
        with T.block("update_update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`);
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    // The old loop handles still point at the update nest.
    expect(sch.get(j!).loopVar.name).toBe("j");
    expect(sch.trace.instructions.at(-1)!.kind.name).toBe("DecomposeReduction");
  });

  it("rejects a loop that is not an ancestor (LoopPositionError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 8), "int32"), C: T.Buffer((8,), "int32"), D: T.Buffer((8,), "int32")):
    for i, k in T.grid(8, 8):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = 0
            C[vi] = C[vi] + A[vi, vk]
    for i in range(8):
        with T.block("D"):
            vi = T.axis.spatial(8, i)
            D[vi] = C[vi]
`),
    );
    const c = sch.getBlock("C");
    const [other] = sch.getLoops(sch.getBlock("D"));
    expectScheduleError(
      sch,
      () => sch.decomposeReduction(c, other!),
      LoopPositionError,
      'The input loop "i" of decompose_reduction is required to be an ancestor of block "C"',
    );
  });

  it("rejects a loop below a reduction loop (LoopHeightError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 8), "int32"), C: T.Buffer((8,), "int32")):
    for k, i in T.grid(8, 8):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = 0
            C[vi] = C[vi] + A[vi, vk]
`),
    );
    const c = sch.getBlock("C");
    const [, i] = sch.getLoops(c);
    expectScheduleError(
      sch,
      () => sch.decomposeReduction(c, i!),
      LoopHeightError,
      'decompose_reduction expect the loop "i" to be higher than all the loops related to reduce block var',
    );
  });

  it("rejects a block that is not a reduction (NotReductionBlockError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi]
`),
    );
    const c = sch.getBlock("C");
    const [i] = sch.getLoops(c);
    expectScheduleError(sch, () => sch.decomposeReduction(c, i!), NotReductionBlockError, 'The block "C" is not a reduction block - it violates condition #1');
  });

  it("preserves outputs at every valid loop of a split int32 matmul", () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 2, 4), fc.constantFrom(1, 2, 4, 8), fc.nat(10), fc.nat(1000), (fi, fk, pick, seed) => {
        const original = parsePrimFunc(MATMUL);
        const sch = new Schedule(original);
        const update = sch.getBlock("update");
        const [i, , k] = sch.getLoops(update);
        sch.split(i!, [null, fi]);
        sch.split(k!, [null, fk]);
        const loops = sch.getLoops(update);
        // Valid loops: everything down to the first loop of the reduction (k_0).
        const valid = loops.slice(0, loops.length - 1);
        sch.decomposeReduction(update, valid[pick % valid.length]!);
        const [before, after] = runBoth(original, sch.func, seed);
        expect(after).toEqual(before);
      }),
      { numRuns: 30 },
    );
  });
});

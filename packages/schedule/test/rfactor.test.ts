import { assertStructuralEqual, parsePrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FactorAxisOutOfRangeError,
  LoopPropertyError,
  NoMatchedReducerError,
  NonSingleChildBlockError,
  NotSerialLoopKindError,
  RFactorNotApplicableError,
  RFactorPredicateError,
} from "../src/error-catalogue.js";
import { Schedule } from "../src/index.js";
import { expectScheduleError, runBoth } from "./support.js";

/** Argmax of each row, a two-buffer reduction written with lets (TVM's argmax reducer). */
const ARGMAX = `
@T.prim_func
def argmax(V: T.Buffer((4, 16), "int32"), I: T.Buffer((4,), "int32"), M: T.Buffer((4,), "int32")):
    for r, k in T.grid(4, 16):
        with T.block("am"):
            vr, vk = T.axis.remap("SR", [r, k])
            with T.init():
                I[vr] = -1
                M[vr] = -2147483648
            v_I: T.int32 = T.Select(M[vr] >= V[vr, vk], I[vr], vk)
            v_M: T.int32 = T.Select(M[vr] >= V[vr, vk], M[vr], V[vr, vk])
            I[vr] = v_I
            M[vr] = v_M
`;

const ROWSUM = `
@T.prim_func
def rowsum(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8,), "int32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + A[vi, vk]
`;

describe("rfactor", () => {
  it("of a sum split into k0, k1 at k1 (factor_axis 0)", () => {
    const sch = new Schedule(parsePrimFunc(ROWSUM));
    const b = sch.getBlock("B");
    const [, k] = sch.getLoops(b);
    const [, k1] = sch.split(k!, [4, 4]);
    const rf = sch.rfactor(k1!, 0);
    expect(sch.get(rf).name).toBe("B_rf");
    expect(sch.get(b).name).toBe("B");
    const expected = parsePrimFunc(`
@T.prim_func
def rowsum(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8,), "int32")):
    B_rf = T.alloc_buffer((4, 8), "int32")
    for i, k_0, k_1 in T.grid(8, 4, 4):
        with T.block("B_rf"):
            vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
            T.reads(A[vi, vk_0 * 4 + vk_1])
            T.writes(B_rf[vk_1, vi])
            with T.init():
                B_rf[vk_1, vi] = 0
            B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
    for i, k_1 in T.grid(8, 4):
        with T.block("B"):
            vk_1, vi = T.axis.remap("RS", [k_1, i])
            T.reads(B_rf[vk_1, vi])
            T.writes(B[vi])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + B_rf[vk_1, vi]
`);
    assertStructuralEqual(sch.func, expected);
    const names = sch.func.body.kind === "BlockRealize" ? sch.func.body.block.allocBuffers.map((x) => x.name) : [];
    expect(names).toEqual(["B.rf"]);
    expect(sch.script()).toContain('with T.block("B_rf"):');
  });

  it("puts the new axis last with factor_axis -1 and matches max reductions", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def rowmax(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8,), "int32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = -2147483648
            B[vi] = T.max(B[vi], A[vi, vk])
`),
    );
    const [, k] = sch.getLoops(sch.getBlock("B"));
    sch.rfactor(k!, -1);
    const buf = sch.func.body.kind === "BlockRealize" ? sch.func.body.block.allocBuffers[0]! : undefined;
    expect(buf?.shape.map((s) => (s.kind === "IntImm" ? s.value : -1))).toEqual([8, 16]);
  });

  it("reports every error class", () => {
    const sch = new Schedule(parsePrimFunc(ROWSUM));
    const b = sch.getBlock("B");
    const [i, k] = sch.getLoops(b);
    expectScheduleError(
      sch,
      () => sch.rfactor(k!, 2),
      FactorAxisOutOfRangeError,
      "The write buffer B has 1 dimension(s), so `factor_axis` is required to be in [-2, 1] for rfactor. However, the input `factor_axis` is 2",
    );
    expectScheduleError(
      sch,
      () => sch.rfactor(i!, 0),
      LoopPropertyError,
      'The loop to be applied rfactor is "i", which is required not to be touched by any data parallel block iter',
    );
    sch.unroll(k!);
    expectScheduleError(sch, () => sch.rfactor(k!, 0), NotSerialLoopKindError, 'of rfactor is required to be `Serial`. However, the kind of "k" is `unroll`');

    const two = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    for i in range(8):
        for k in range(16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + A[vi, vk]
        for k in range(16):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = 0
                C[vi] = C[vi] + A[vi, vk]
`),
    );
    const [outer] = two.getLoops(two.getBlock("B"));
    expectScheduleError(two, () => two.rfactor(outer!, 0), NonSingleChildBlockError, 'The loop "i" is required to have only one child block');

    const sub = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8,), "int32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] - A[vi, vk]
`),
    );
    const [, sk] = sub.getLoops(sub.getBlock("B"));
    expectScheduleError(sub, () => sub.rfactor(sk!, 0), NoMatchedReducerError, "No matched reducer for identity [0] and combiner [B[vi] = B[vi] - A[vi, vk]]");

    const seqInit = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8,), "int32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            if vk < 8:
                B[vi] = B[vi] + A[vi, vk]
`),
    );
    const [, qk] = seqInit.getLoops(seqInit.getBlock("B"));
    expectScheduleError(seqInit, () => seqInit.rfactor(qk!, 0), RFactorNotApplicableError, "because the block violates condition #3");
  });

  it("preserves outputs of int32 sum reductions under random splits", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 8, 16),
        fc.constantFrom(1, 2, 4),
        fc.boolean(),
        fc.integer({ min: -2, max: 1 }),
        fc.nat(1000),
        (f1, f2, inner, axis, seed) => {
          const original = parsePrimFunc(ROWSUM);
          const sch = new Schedule(original);
          const b = sch.getBlock("B");
          const [, k] = sch.getLoops(b);
          const [k0, k1] = sch.split(k!, [null, f1]);
          let target = inner ? k1! : k0!;
          if (f2 > 1 && !inner && (16 / f1) % f2 === 0) target = sch.split(k0!, [null, f2])[1]!;
          sch.rfactor(target, axis);
          const [before, after] = runBoth(original, sch.func, seed);
          expect(after).toEqual(before);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("of a piece of fused reduction loops whose other iterator shares the piece's loop (MetaSchedule's AddRFactor), keeping outputs", () => {
    const original = parsePrimFunc(`
@T.prim_func
def plane(A: T.Buffer((2, 6, 7), "int32"), B: T.Buffer((2,), "int32")):
    for i, j, k in T.grid(2, 6, 7):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SRR", [i, j, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + A[vi, vj, vk]
`);
    for (const factors of [
      [1, 42],
      [6, 7],
      [21, 2],
    ] as const) {
      for (const piece of [0, 1]) {
        const sch = new Schedule(original);
        const [, j, k] = sch.getLoops("B");
        const pieces = sch.split(sch.fuse(j, k), factors);
        sch.rfactor(pieces[piece], 1);
        const [before, after] = runBoth(original, sch.func, 7);
        expect(after).toEqual(before);
      }
    }
  });

  it("rejects a block whose predicate bounds loops the rfactor block binds separately, changing nothing", () => {
    const sch = new Schedule(parsePrimFunc(ROWSUM));
    const [, k] = sch.getLoops("B");
    const [k0] = sch.split(k, [null, 5]);
    expectScheduleError(sch, () => sch.rfactor(k0, 1), RFactorPredicateError, "bounds loops that its rfactor block would bind separately");
  });

  it("of an argmax (two buffers, lets) keeps the outputs under random splits and factor axes", () => {
    const original = parsePrimFunc(ARGMAX);
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 8), fc.boolean(), fc.integer({ min: -2, max: 1 }), fc.nat(1000), (factor, inner, axis, seed) => {
        const sch = new Schedule(original);
        const [, k] = sch.getLoops("am");
        const [k0, k1] = sch.split(k, [null, factor]);
        sch.rfactor(inner ? k1 : k0, axis);
        const [before, after] = runBoth(original, sch.func, seed);
        // The maxima agree; on ties the two orders may pick different indices of the maximum.
        const [values, index, maxima] = after as [number[], number[], number[]];
        expect(maxima).toEqual(before[2]);
        index.forEach((k, r) => expect(values[r * 16 + k]).toBe(maxima[r]));
      }),
      { numRuns: 12 },
    );
  });

  it("rejects a two-buffer reduction no registered reducer matches, naming both combiners", () => {
    const sch = new Schedule(parsePrimFunc(ARGMAX.replace("M[vr] >= V[vr, vk], I[vr], vk", "M[vr] > V[vr, vk], I[vr], vk")));
    const [, k] = sch.getLoops("am");
    expectScheduleError(sch, () => sch.rfactor(k, 0), NoMatchedReducerError, "No matched reducer for identity [-1, -2147483648] and combiner [I[vr] = ");
  });
});

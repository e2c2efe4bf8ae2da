/**
 * TVM's explicit vector accesses with a lane mask: `A.vload(begin, dtype=, predicate=)` and
 * `A.vstore(begin, value, predicate=)` (BufferLoad / BufferStore with a predicate).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePrimFunc } from "../../src/exec/index.js";
import type { PrimFunc } from "../../src/func.js";
import { forEachExpr, forEachStmt, substituteStmt } from "../../src/functor.js";
import { parsePrimFunc } from "../../src/parser/index.js";
import type { BufferStore } from "../../src/stmt.js";
import { structuralEqual } from "../../src/structural/index.js";
import { intImm } from "../../src/expr.js";
import { errorOf, roundTrip } from "./helpers.js";

function fn(...body: string[]): string {
  return [
    "@T.prim_func",
    'def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), M: T.Buffer((4,), "bool"), n: T.int32):',
    ...body.map((l) => `    ${l}`),
  ].join("\n");
}

function stores(f: PrimFunc): BufferStore[] {
  const out: BufferStore[] = [];
  forEachStmt(f.body, (s) => void (s.kind === "BufferStore" && out.push(s)));
  return out;
}

const MASKED = "B.vstore([T.Ramp(n, 1, 4)], A.vload([T.Ramp(0, 2, 4)], predicate=M[0:4]), predicate=M[0:4])";

describe("predicated vector accesses", () => {
  it("parse into a load and a store with a predicate and print back as TVM writes them", () => {
    const { f, printed } = roundTrip(fn(MASKED));
    const [store] = stores(f);
    expect(store?.predicate?.dtype).toBe("boolx4");
    expect(store?.value.kind === "BufferLoad" && store.value.predicate?.dtype).toBe("boolx4");
    expect(printed).toContain("B.vstore([T.Ramp(n, 1, 4)], A.vload([T.Ramp(0, 2, 4)], predicate=M[0:4]), predicate=M[0:4])");
  });

  it("without a predicate they are ordinary accesses; dtype= widens a scalar last index to a ramp, as TVM", () => {
    const plain = parsePrimFunc(fn('B.vstore([T.Ramp(0, 1, 4)], A.vload([4], dtype="float32x4"))'));
    const sliced = parsePrimFunc(fn("B[0:4] = A[4:8]"));
    expect(structuralEqual(plain, sliced)).toBe(true);
    expect(errorOf(fn('B[0:4] = A.vload([T.Ramp(0, 1, 4)], dtype="float32x8")')).reason).toBe('A.vload reads float32x4, not the dtype="float32x8" given');
  });

  it("structural equality tells a mask from none and one mask from another", () => {
    const other = parsePrimFunc(fn(MASKED.replaceAll("M[0:4]", "T.Broadcast(T.bool(True), 4)")));
    const none = parsePrimFunc(fn("B.vstore([T.Ramp(n, 1, 4)], A.vload([T.Ramp(0, 2, 4)]))"));
    const masked = parsePrimFunc(fn(MASKED));
    expect(structuralEqual(masked, parsePrimFunc(fn(MASKED)))).toBe(true);
    expect(structuralEqual(masked, other)).toBe(false);
    expect(structuralEqual(masked, none)).toBe(false);
  });

  it("a mutator keeps the predicates (regression: rebuilt accesses dropped them)", () => {
    const f = parsePrimFunc(fn(MASKED));
    const n = f.params[3]!;
    const moved = substituteStmt(f.body, new Map([[n, intImm(2)]]));
    const predicates: string[] = [];
    forEachStmt(moved, (s) => void (s.kind === "BufferStore" && s.predicate !== undefined && predicates.push("store")));
    forEachExpr(moved, (e) => void (e.kind === "BufferLoad" && e.predicate !== undefined && predicates.push("load")));
    expect(predicates.sort()).toEqual(["load", "store"]);
  });

  it("the executor reads and writes only the lanes the mask selects; masked-off loads are zero", () => {
    const f = parsePrimFunc(fn(MASKED));
    const run = compilePrimFunc(f, { boundsCheck: true });
    fc.assert(
      fc.property(
        fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 8, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 0, max: 4 }),
        (data, mask, n) => {
          const a = Float32Array.from(data);
          const b = Float32Array.from({ length: 8 }, (_, i) => -1 - i);
          const expected = Float32Array.from(b);
          mask.forEach((on, k) => {
            if (on) expected[n + k] = a[2 * k]!;
          });
          run.run([a, b, Uint8Array.from(mask.map(Number)), n]);
          expect([...b]).toEqual([...expected]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("a masked-off lane is not bounds-checked: only selected lanes must be in range", () => {
    const f = parsePrimFunc(fn("B.vstore([T.Ramp(6, 1, 4)], T.Broadcast(T.float32(1), 4), predicate=M[0:4])"));
    const b = new Float32Array(8);
    compilePrimFunc(f, { boundsCheck: true }).run([new Float32Array(8), b, Uint8Array.from([1, 1, 0, 0]), 0]);
    expect([...b]).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
    expect(() => compilePrimFunc(f, { boundsCheck: true }).run([new Float32Array(8), b, Uint8Array.from([1, 1, 1, 0]), 0])).toThrow();
  });

  it("name what is wrong: a scalar access, a mask of other lanes or type, vstore as a value", () => {
    expect(errorOf(fn("B.vstore([0], T.float32(1), predicate=T.bool(True))")).reason).toBe(
      "store to B: a predicate needs a vector access, but it accesses one float32 element",
    );
    expect(errorOf(fn("B[0:4] = A.vload([T.Ramp(0, 1, 4)], predicate=M[0:2])")).reason).toBe(
      "load of A: the predicate must be a bool vector of 4 lanes (boolx4), got boolx2",
    );
    expect(errorOf(fn("B[0:4] = A.vload([T.Ramp(0, 1, 4)], predicate=T.Broadcast(1, 4))")).reason).toBe(
      "load of A: the predicate must be a bool vector of 4 lanes (boolx4), got int32x4",
    );
    const e = errorOf(fn("B[0:4] = B.vstore([T.Ramp(0, 1, 4)], A[0:4])"));
    expect(e).toEqual({ reason: "B.vstore(...) is a statement, not a value", line: 3, column: 14 });
    expect(errorOf(fn("B.vstore([0, 1], T.float32(1))")).reason).toBe("B.vstore needs 1 indices (one per dimension of B), got 2");
  });
});

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { lowerMatchBuffer } from "../../src/lower/passes/index.js";
import { expectSameResults, expectStructurallyEqual, parse } from "./helpers.js";

const tiles = (rows: number, cols: number) => `
@T.prim_func
def main(X: T.Buffer((${rows * 2}, ${cols * 3}), "float32"), Y: T.Buffer((${rows * 2}, ${cols * 3}), "float32")):
    for r, c in T.grid(2, 3):
        with T.block("tile"):
            T.reads(X[r * ${rows}:r * ${rows} + ${rows}, c * ${cols}:c * ${cols} + ${cols}])
            T.writes(Y[r * ${rows}:r * ${rows} + ${rows}, c * ${cols}:c * ${cols} + ${cols}])
            x = T.match_buffer(X[r * ${rows}:r * ${rows} + ${rows}, c * ${cols}:c * ${cols} + ${cols}], (${rows}, ${cols}), offset_factor=1)
            y = T.match_buffer(Y[r * ${rows}:r * ${rows} + ${rows}, c * ${cols}:c * ${cols} + ${cols}], (${rows}, ${cols}), offset_factor=1)
            for i, j in T.grid(${rows}, ${cols}):
                y[i, j] = x[i, j] * T.float32(3) + T.float32(1)
`;

describe("lowerMatchBuffer (TVM LowerMatchBuffer)", () => {
  test("accesses of a view become accesses of its source, offset by the region's minimum", () => {
    const expected = parse(`
@T.prim_func
def main(X: T.Buffer((4, 6), "float32"), Y: T.Buffer((4, 6), "float32")):
    for r, c in T.grid(2, 3):
        with T.block("tile"):
            T.reads(X[r * 2:r * 2 + 2, c * 2:c * 2 + 2])
            T.writes(Y[r * 2:r * 2 + 2, c * 2:c * 2 + 2])
            for i, j in T.grid(2, 2):
                Y[r * 2 + i, c * 2 + j] = X[r * 2 + i, c * 2 + j] * T.float32(3) + T.float32(1)
`);
    expectStructurallyEqual(lowerMatchBuffer(parse(tiles(2, 2))), expected);
  });

  test("a view's omitted elem_offset with an offset_factor is a fresh variable in today's dialect, bound to the region's offset", () => {
    const block = (...lines: string[]) =>
      [
        "@T.prim_func(s_tir=True)",
        'def main(A: T.Buffer((16,), "float32")):',
        '    with T.sblock(""):',
        "        T.reads()",
        "        T.writes(A[4:8])",
        ...lines.map((l) => `        ${l}`),
      ].join("\n");
    const f = parse(block("sub = T.match_buffer(A[4:8], (4,), offset_factor=1)", 'T.evaluate(T.call_extern("int32", "consume", sub.data, sub.elem_offset))'));
    const expected = parse(block('T.evaluate(T.call_extern("int32", "consume", A.data, 4))'));
    expectStructurallyEqual(lowerMatchBuffer(f), expected);
  });

  test("a view of lower rank keeps the left-out dimension's minimum", () => {
    const f = parse(`
@T.prim_func
def main(A: T.Buffer((4, 8), "float32")):
    for r in range(4):
        with T.block("row"):
            row = T.match_buffer(A[r, 0:8], (8,), offset_factor=1)
            for j in range(8):
                row[j] = row[j] + T.float32(1)
`);
    const expected = parse(`
@T.prim_func
def main(A: T.Buffer((4, 8), "float32")):
    for r in range(4):
        with T.block("row"):
            for j in range(8):
                A[r, j] = A[r, j] + T.float32(1)
`);
    expectStructurallyEqual(lowerMatchBuffer(f), expected);
  });

  test("a stride declared as a parameter that does not match is an error naming the field", () => {
    const f = parse(`
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), m: T.int32):
    for i in range(8):
        with T.block("b"):
            v = T.match_buffer(A[i, 0:8], (8,), strides=[m], offset_factor=1)
            for j in range(8):
                v[j] = T.float32(0)
`);
    expect(() => lowerMatchBuffer(f)).toThrow(LoweringError);
    expect(() => lowerMatchBuffer(f)).toThrow(/match_buffer v of block b: strides\[0\] is declared m but the source region gives 1/);
  });

  test("property: results are unchanged for any tile shape", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 99 }), (rows, cols, seed) => {
        const f = parse(tiles(rows, cols));
        expectSameResults(lowerMatchBuffer(f), f, seed);
      }),
      { numRuns: 20 },
    );
  });
});

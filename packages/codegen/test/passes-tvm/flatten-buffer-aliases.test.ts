import { describe, expect, test } from "vitest";
import { flattenBuffer, simplifyFunc } from "../../src/lower/passes/index.js";
import { expectSameResults, expectStructurallyEqual, parse } from "./helpers.js";

const BEFORE = `
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        C[i, j] = A[i, j] * T.float32(2)
`;

describe("flattenBuffer with paramAliases (TVM FlattenBuffer's form)", () => {
  test("parameters keep their shape and are accessed through flat aliases of their data", () => {
    const out = simplifyFunc(flattenBuffer(parse(BEFORE), { paramAliases: true }));
    const expected = parse(`
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    A_flat = T.decl_buffer((32,), data=A.data)
    C_flat = T.decl_buffer((32,), data=C.data)
    for i, j in T.grid(4, 8):
        C_flat[i * 8 + j] = A_flat[i * 8 + j] * T.float32(2)
`);
    expectStructurallyEqual(out, expected);
    expectSameResults(out, parse(BEFORE));
  });

  test("by default (the pipeline's form) parameters are flattened in place", () => {
    const out = flattenBuffer(parse(BEFORE));
    expect([...out.bufferMap.values()].map((b) => b.shape.length)).toEqual([1, 1]);
    expectSameResults(out, parse(BEFORE));
  });
});

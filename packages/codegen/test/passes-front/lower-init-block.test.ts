import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { lowerInitBlock } from "../../src/lower/passes/index.js";
import { expectSameResults, script } from "./helpers.js";

const ROW_SUM = `
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        with T.block("sum"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce(8, k)
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
`;

describe("lowerInitBlock", () => {
  test("init becomes a guarded statement at the start of the body", () => {
    const f = parsePrimFunc(ROW_SUM);
    const out = lowerInitBlock(f);
    expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    # with T.block("root"):
    for i, k in T.grid(4, 8):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(B[vi])
            if vk == 0:
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
`);
    expectSameResults(out, f);
  });

  test("every reduce iterator is compared with its domain minimum", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4, 8, 8), "float32"), B: T.Buffer((4,), "float32")):
    for i, k, l in T.grid(4, 6, 8):
        with T.block("sum"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce((2, 8), k + 2)
            vl = T.axis.reduce(8, l)
            T.reads(A[vi, vk, vl])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk, vl]
`);
    expect(script(lowerInitBlock(f))).toContain("if vk == 2 and vl == 0:");
    expectSameResults(lowerInitBlock(f), f);
  });

  test("a function without init is returned unchanged", () => {
    const f = lowerInitBlock(parsePrimFunc(ROW_SUM));
    expect(lowerInitBlock(f)).toBe(f);
  });
});

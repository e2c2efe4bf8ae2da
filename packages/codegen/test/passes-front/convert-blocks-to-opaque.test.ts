import { type Var, bufferStore, floatImm, forEachStmt, parsePrimFunc, seq, withBody } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { convertBlocksToOpaque, lowerInitBlock } from "../../src/lower/passes/index.js";
import { LoweringError } from "../../src/lower/errors.js";
import { corpusEntry, expectSameResults, script } from "./helpers.js";

const NESTED = `
@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8, 4), "float32")):
    for i in range(8):
        with T.block("outer"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi, 0:4])
            T.writes(B[vi, 0:4])
            for j in range(4):
                with T.block("inner"):
                    vj = T.axis.spatial(4, j)
                    vk = T.axis.spatial(8, vi)
                    T.where(vi + j < 10)
                    T.reads(A[vk, vj])
                    T.writes(B[vk, vj])
                    B[vk, vj] = A[vk, vj] + T.float32(1)
`;

describe("convertBlocksToOpaque", () => {
  test("iterators are replaced by their bindings in bodies, regions and nested bindings", () => {
    const f = parsePrimFunc(NESTED);
    const out = convertBlocksToOpaque(f);
    expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8, 4), "float32")):
    # with T.block("root"):
    for i in range(8):
        with T.block("outer"):
            T.reads(A[i, 0:4])
            T.writes(B[i, 0:4])
            for j in range(4):
                with T.block("inner"):
                    T.where(i + j < 10)
                    T.reads(A[i, j])
                    T.writes(B[i, j])
                    B[i, j] = A[i, j] + T.float32(1.0)
`);
    expectSameResults(out, f);
  });

  test("corpus: the manual schedule runs the same after passes 1 and 3", () => {
    const entry = corpusEntry("gemm_relu_add_manual");
    expectSameResults(convertBlocksToOpaque(lowerInitBlock(entry.build().func)), entry.original());
  });

  test("a remaining init is an error naming the block", () => {
    const f = corpusEntry("gemm_relu_add_naive").build().func;
    expect(() => convertBlocksToOpaque(f)).toThrow(LoweringError);
    expect(() => convertBlocksToOpaque(f)).toThrow("convertBlocksToOpaque: block gemm still has an init statement: run lowerInitBlock first");
  });
});

describe("convertBlocksToOpaque refuses iterators out of their scope, as TVM does", () => {
  test("a predicate that uses the block's own iterator", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("guarded"):
            vi = T.axis.spatial(8, i)
            T.where(vi < 6)
            A[vi] = T.float32(0)
`);
    expect(() => convertBlocksToOpaque(f)).toThrow(LoweringError);
    expect(() => convertBlocksToOpaque(f)).toThrow(/iterator vi of block guarded is used in the predicate or the bindings of its own block/);
  });

  test("an iterator used after its block", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    with T.block("root"):
        for i in range(8):
            with T.block("first"):
                vi = T.axis.spatial(8, i)
                A[vi] = T.float32(0)
`);
    // The parser refuses an escaping iterator: the use after the block is built by hand.
    let vi: Var | undefined;
    forEachStmt(f.body, (s) => {
      if (s.kind === "BlockRealize" && s.block.name === "first") vi = s.block.iterVars[0]!.var;
    });
    const A = [...f.bufferMap.values()][0]!;
    const escaped = withBody(f, seq([f.body, bufferStore(A, floatImm(1, "float32"), [vi!])]));
    expect(() => convertBlocksToOpaque(escaped)).toThrow(/iterator vi of block first is used outside its block/);
  });
});

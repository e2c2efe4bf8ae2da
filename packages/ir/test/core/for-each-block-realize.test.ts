import { describe, expect, it } from "vitest";
import { type BlockRealize, type For, forEachBlockRealize, parsePrimFunc } from "../../src/index.js";

// A block nested in another block's body, under loops of both scopes.
const text = `
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i in range(4):
        with T.block("outer"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi, 0:8])
            T.writes(B[vi, 0:8])
            for j in range(8):
                with T.block("inner"):
                    vj = T.axis.spatial(8, j)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2)
`;

function sites(opts?: { withinScope?: boolean }, stopAt?: string): [string, string[]][] {
  const out: [string, string[]][] = [];
  forEachBlockRealize(
    parsePrimFunc(text).body,
    (r: BlockRealize, loops: readonly For[]) => {
      out.push([r.block.name, loops.map((l) => l.loopVar.name)]);
      return r.block.name !== stopAt;
    },
    opts,
  );
  return out;
}

describe("forEachBlockRealize", () => {
  it("visits every block with its loops, outermost first, across scopes or within one", () => {
    expect(sites()).toEqual([
      ["root", []],
      ["outer", ["i"]],
      ["inner", ["i", "j"]],
    ]);
    expect(sites({ withinScope: true })).toEqual([
      ["root", []],
      ["outer", ["i"]],
      ["inner", ["j"]],
    ]);
  });

  it("does not walk into a block whose visit returns false", () => {
    expect(sites({}, "outer").map(([name]) => name)).toEqual(["root", "outer"]);
  });
});

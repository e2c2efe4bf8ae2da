import { type PrimFunc, forEachStmt, printExpr } from "@tessera/ir";
import fc from "fast-check";
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

describe("flattenBuffer in TVM's form: every used parameter aliased, strided sizes, remaining blocks", () => {
  test("a one-dimensional parameter gets an alias too; a parameter the body never touches gets none", () => {
    const before = parse(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        C[i] = A[i] + T.float32(1)
`);
    const out = flattenBuffer(before, { paramAliases: true });
    const expected = parse(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    A_flat = T.decl_buffer((8,), data=A.data)
    C_flat = T.decl_buffer((8,), data=C.data)
    for i in range(8):
        C_flat[i] = A_flat[i] + T.float32(1)
`);
    expectStructurallyEqual(out, expected);
    expectSameResults(out, before);
  });

  const strided = (rows: number, cols: number, pitch: number): string => `
@T.prim_func
def main(A: T.Buffer((${rows}, ${cols}), "float32"), C: T.Buffer((${rows}, ${cols}), "float32")):
    B = T.decl_buffer((${rows}, ${pitch}))
    B_view = T.decl_buffer((${rows}, ${cols}), data=B.data, strides=(${pitch}, 1))
    for i, j in T.grid(${rows}, ${cols}):
        B_view[i, j] = A[i, j] + T.float32(1)
    for i, j in T.grid(${rows}, ${cols}):
        C[i, j] = B_view[i, j] * T.float32(2)
`;

  test("a strided view spans strides[0] * shape[0] elements with outerStrideSize, its last element + 1 without", () => {
    const sizeOfView = (f: PrimFunc): number | undefined => {
      let size: number | undefined;
      forEachStmt(f.body, (s) => {
        if (s.kind === "DeclBuffer" && s.buffer.name === "B_view") size = s.buffer.shape[0]?.kind === "IntImm" ? s.buffer.shape[0].value : undefined;
      });
      return size;
    };
    expect(sizeOfView(flattenBuffer(parse(strided(4, 16, 17)), { outerStrideSize: true }))).toBe(68);
    expect(sizeOfView(flattenBuffer(parse(strided(4, 16, 17))))).toBe(67);
  });

  test("blocks that remain keep their allocations and regions, flattened", () => {
    const before = parse(`
@T.prim_func
def main(C: T.Buffer((4, 8), "float32")):
    with T.block("root"):
        S = T.alloc_buffer((4, 8))
        for i, j in T.grid(4, 8):
            with T.block("fill"):
                T.reads()
                T.writes(S[i, j])
                S[i, j] = T.Cast("float32", i * 8 + j)
        for i in range(4):
            with T.block("copy"):
                T.reads(S[i, 0:8])
                T.writes(C[i, 0:8])
                for j in range(8):
                    C[i, j] = S[i, j]
`);
    const out = simplifyFunc(flattenBuffer(before, { paramAliases: true }));
    const blocks: string[] = [];
    forEachStmt(out.body, (st) => {
      if (st.kind !== "BlockRealize") return;
      const b = st.block;
      const regions = [...b.reads, ...b.writes].map((r) => `${r.buffer.name}[${r.region.map((x) => `${printExpr(x.min)}+${printExpr(x.extent)}`).join(", ")}]`);
      blocks.push(`${b.name}: ${b.allocBuffers.map((x) => `${x.name}(${x.shape.map((e) => printExpr(e)).join(", ")})`).join(" ")} ${regions.join(" ")}`.trim());
    });
    expect(blocks).toEqual(["root: S(32) C[0+32]", "fill:  S[i * 8 + j+1]", "copy:  S[i * 8+8] C[i * 8+8]"]);
    expectSameResults(out, before);
  });

  test("property: both forms compute what the function did, for random shapes and pitches", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 3 }), (rows, cols, pad) => {
        const before = parse(strided(rows, cols, cols + pad));
        for (const opts of [{}, { paramAliases: true, outerStrideSize: true }]) expectSameResults(flattenBuffer(before, opts), before);
      }),
      { numRuns: 25 },
    );
  });
});

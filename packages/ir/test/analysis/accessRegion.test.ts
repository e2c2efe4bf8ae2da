import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { add, bufferLoad, floordiv, letExpr, mul, ramp, sub, variable } from "../../src/expr.js";
import { ifThenElse } from "../../src/intrinsics.js";
import type { BlockRealize, For } from "../../src/stmt.js";
import { block, blockRealize, bufferRegion, bufferStore, forLoop, ifThenElseStmt, letStmt, range, seq } from "../../src/stmt.js";
import { completeBlockRegions, inferAccessRegions, withInferredRegions } from "../../src/analysis/index.js";
import { matmulFunc, showRegions, spatialIter } from "./fixtures.js";

describe("inferAccessRegions", () => {
  it("gives matmul's point accesses and drops the init-written C from reads", () => {
    const { update } = matmulFunc();
    const r = inferAccessRegions(update);
    expect(showRegions(r.reads)).toEqual(["A[vi, vk]", "B[vk, vj]"]);
    expect(showRegions(r.writes)).toEqual(["C[vi, vj]"]);
  });

  it("keeps a read-modify-write buffer in reads when there is no init", () => {
    const { update } = matmulFunc();
    const r = inferAccessRegions({ ...update, init: undefined });
    expect(showRegions(r.reads)).toEqual(["C[vi, vj]", "A[vi, vk]", "B[vk, vj]"]);
  });

  it("relaxes loops inside the block", () => {
    const A = declBuffer("A", [128]);
    const C = declBuffer("C", [16]);
    const { v: vi, iv } = spatialIter("vi", 16);
    const k = variable("k");
    const blk = block({
      name: "sum8",
      iterVars: [iv],
      body: forLoop(k, 8, bufferStore(C, add(bufferLoad(C, [vi]), bufferLoad(A, [add(mul(vi, 8), k)])), [vi])),
    });
    const r = inferAccessRegions(blk);
    expect(showRegions(r.reads)).toEqual(["C[vi]", "A[vi * 8:vi * 8 + 8]"]);
    expect(showRegions(r.writes)).toEqual(["C[vi]"]);
  });

  it("unions several accesses of one buffer without clamping to the shape (as TVM)", () => {
    const A = declBuffer("A", [16]);
    const B = declBuffer("B", [16]);
    const { v: vi, iv } = spatialIter("vi", 16);
    const blk = block({
      name: "stencil",
      iterVars: [iv],
      body: bufferStore(B, add(add(bufferLoad(A, [sub(vi, 1)]), bufferLoad(A, [vi])), bufferLoad(A, [add(vi, 1)])), [vi]),
    });
    const [read] = inferAccessRegions(blk).reads;
    expect(read!.buffer).toBe(A);
    expect(showRegions([read!])).toEqual(["A[vi - 1:vi + 2]"]);
  });

  it("covers the whole dimension when an index is data dependent", () => {
    const A = declBuffer("A", [10]);
    const I = declBuffer("I", [4], "int32");
    const B = declBuffer("B", [4]);
    const { v: vi, iv } = spatialIter("vi", 4);
    const blk = block({ name: "gather", iterVars: [iv], body: bufferStore(B, bufferLoad(A, [bufferLoad(I, [vi])]), [vi]) });
    expect(showRegions(inferAccessRegions(blk).reads)).toEqual(["I[vi]", "A[0:10]"]);
  });

  it("uses a nested block's declared regions with bindings substituted and loops relaxed", () => {
    const A = declBuffer("A", [16]);
    const B = declBuffer("B", [16]);
    const { v: vo, iv: ivo } = spatialIter("vo", 4);
    const { v: vi, iv: ivi } = spatialIter("vi", 16);
    const i = variable("i");
    const inner = block({
      name: "inner",
      iterVars: [ivi],
      reads: [bufferRegion(A, [range(vi, 1)])],
      writes: [bufferRegion(B, [range(vi, 1)])],
      body: bufferStore(B, bufferLoad(A, [vi]), [vi]),
    });
    const outer = block({
      name: "outer",
      iterVars: [ivo],
      body: forLoop(i, 4, blockRealize([add(mul(vo, 4), i)], true, inner)),
    });
    const r = inferAccessRegions(outer);
    expect(showRegions(r.reads)).toEqual(["A[vo * 4:vo * 4 + 4]"]);
    expect(showRegions(r.writes)).toEqual(["B[vo * 4:vo * 4 + 4]"]);
  });

  it("skips buffers the block allocates, inside lets and conditionals too", () => {
    const A = declBuffer("A", [8]);
    const B = declBuffer("B", [8]);
    const T = declBuffer("T", [8], "float32", { scope: "local" });
    const k = variable("k");
    const t = variable("t");
    const blk = block({
      name: "staged",
      allocBuffers: [T],
      body: seq([
        forLoop(k, 8, letStmt(t, sub(7, k), bufferStore(T, bufferLoad(A, [t]), [k]))),
        forLoop(k, 4, ifThenElseStmt(true, bufferStore(B, ifThenElse(true, bufferLoad(T, [k]), 0), [add(k, 4)]))),
      ]),
    });
    const r = inferAccessRegions(blk);
    expect(showRegions(r.reads)).toEqual(["A[0:8]"]);
    expect(showRegions(r.writes)).toEqual(["B[4:8]"]);
  });

  it("covers all lanes of vector indices and let-expressions", () => {
    const A = declBuffer("A", [64]);
    const B = declBuffer("B", [64]);
    const { v: vi, iv } = spatialIter("vi", 16);
    const t = variable("t");
    const blk = block({
      name: "vec",
      iterVars: [iv],
      body: bufferStore(B, bufferLoad(A, [ramp(mul(vi, 4), 1, 4)]), [ramp(letExpr(t, mul(vi, 4), t), 1, 4)]),
    });
    const r = inferAccessRegions(blk);
    expect(showRegions(r.reads)).toEqual(["A[vi * 4:vi * 4 + 4]"]);
    expect(showRegions(r.writes)).toEqual(["B[vi * 4:vi * 4 + 4]"]);
  });

  it("maps floordiv indices through the interval analysis", () => {
    const A = declBuffer("A", [32]);
    const B = declBuffer("B", [8]);
    const { v: vi, iv } = spatialIter("vi", 8);
    const k = variable("k");
    const blk = block({
      name: "pool",
      iterVars: [iv],
      body: forLoop(k, 4, bufferStore(B, bufferLoad(A, [floordiv(add(mul(vi, 8), mul(k, 2)), 2)]), [vi])),
    });
    expect(showRegions(inferAccessRegions(blk).reads)).toEqual(["A[vi * 4:vi * 4 + 4]"]);
  });
});

describe("completeBlockRegions / withInferredRegions", () => {
  it("fills only the missing lists", () => {
    const { update, A, C } = matmulFunc();
    const withReads = { ...update, reads: [bufferRegion(A, [range(0, 128), range(0, 128)])] };
    const completed = completeBlockRegions(withReads);
    expect(showRegions(completed.reads)).toEqual(["A[0:128, 0:128]"]);
    expect(showRegions(completed.writes)).toEqual(["C[vi, vj]"]);
    const declared = { ...update, writes: [bufferRegion(C, [range(0, 128), range(0, 128)])] };
    expect(completeBlockRegions(declared, { reads: false, writes: false })).toBe(declared);
    expect(showRegions(completeBlockRegions(declared, { reads: true, writes: false }).writes)).toEqual(["C[0:128, 0:128]"]);
  });

  it("fills every block but the root", () => {
    const { func } = matmulFunc();
    const filled = withInferredRegions(func);
    const root = filled.body as BlockRealize;
    expect(root.block.reads).toEqual([]);
    expect(root.block.writes).toEqual([]);
    let loop = root.block.body as For;
    while (loop.body.kind === "For") loop = loop.body;
    const update = (loop.body as BlockRealize).block;
    expect(showRegions(update.reads)).toEqual(["A[vi, vk]", "B[vk, vj]"]);
    expect(showRegions(update.writes)).toEqual(["C[vi, vj]"]);
    expect(withInferredRegions(filled)).toBe(filled);
  });

  it("fills outer blocks from the regions just inferred for inner ones", () => {
    const A = declBuffer("A", [16]);
    const B = declBuffer("B", [16]);
    const { v: vo, iv: ivo } = spatialIter("vo", 4);
    const { v: vi, iv: ivi } = spatialIter("vi", 16);
    const i = variable("i");
    const o = variable("o");
    const inner = block({ name: "inner", iterVars: [ivi], body: bufferStore(B, bufferLoad(A, [vi]), [vi]) });
    const outer = block({ name: "outer", iterVars: [ivo], body: forLoop(i, 4, blockRealize([add(mul(vo, 4), i)], true, inner)) });
    const body = blockRealize([], true, block({ name: "root", body: forLoop(o, 4, blockRealize([o], true, outer)) }));
    const a = variable("a", "handle");
    const b = variable("b", "handle");
    const filled = withInferredRegions({
      kind: "PrimFunc",
      params: [a, b],
      bufferMap: new Map([
        [a, A],
        [b, B],
      ]),
      body,
      attrs: {},
    });
    const outerFilled = (((filled.body as BlockRealize).block.body as For).body as BlockRealize).block;
    expect(showRegions(outerFilled.reads)).toEqual(["A[vo * 4:vo * 4 + 4]"]);
    expect(showRegions(outerFilled.writes)).toEqual(["B[vo * 4:vo * 4 + 4]"]);
  });
});

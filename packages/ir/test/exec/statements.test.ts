import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { type ForOptions, bufferRegion, declBufferStmt } from "../../src/stmt.js";
import { ExecutionError, compilePrimFunc, randomArgs, runPrimFunc } from "../../src/exec/index.js";
import { matmulFunc, referenceMatmulF32 } from "../../bench/workloads.js";
import { funcOf, rooted } from "./helpers.js";

const { variable: v, bufferLoad: load, bufferStore: store, forLoop, declBuffer } = ir;

/** `for i in range(n): Out[i] = f(i)` over a 1-D int32 buffer. */
function fill1d(n: number, f: (i: ir.Var) => ir.PrimExpr, opts: ForOptions = {}) {
  const out = declBuffer("Out", [n], "int32");
  const i = v("i");
  return { out, func: funcOf([out], forLoop(i, n, store(out, f(i), [i]), opts)) };
}

describe("blocks", () => {
  it("runs a matmul block with init and reduction like a naive triple loop", () => {
    const n = 24;
    const func = matmulFunc(n);
    const [A, B, C] = randomArgs(func, 7) as Float32Array[];
    C!.fill(123); // init must overwrite stale values
    runPrimFunc(func, [A!, B!, C!]);
    expect(Array.from(C!)).toEqual(Array.from(referenceMatmulF32(A!, B!, n)));
  });

  it("runs init only when the reduce iterators are at their minimum", () => {
    // S[vi] = 100 (init, vk == 2) then S[vi] += vk for vk in [2, 5)
    const S = declBuffer("S", [2], "int32");
    const [i, k, vi, vk] = [v("i"), v("k"), v("vi"), v("vk")];
    const blk = ir.block({
      name: "S",
      iterVars: [ir.iterVar(vi, ir.rangeFromExtent(2), "spatial"), ir.iterVar(vk, ir.range(2, 3), "reduce")],
      init: store(S, 100, [vi]),
      body: store(S, ir.add(load(S, [vi]), vk), [vi]),
    });
    const body = forLoop(i, 2, forLoop(k, 3, ir.blockRealize([i, ir.add(k, 2)], true, blk)));
    const out = new Int32Array(2);
    runPrimFunc(funcOf([S], rooted(body)), [out]);
    expect(Array.from(out)).toEqual([109, 109]);
  });

  it("skips block instances whose predicate (T.where) is false", () => {
    const out = declBuffer("Out", [10], "int32");
    const [io, ii, vi] = [v("io"), v("ii"), v("vi")];
    const blk = ir.block({
      name: "B",
      iterVars: [ir.iterVar(vi, ir.rangeFromExtent(10), "spatial")],
      body: store(out, ir.add(vi, 1), [vi]),
    });
    const idx = ir.add(ir.mul(io, 4), ii);
    const body = forLoop(io, 3, forLoop(ii, 4, ir.blockRealize([idx], ir.lt(idx, 10), blk)));
    const arr = new Int32Array(10);
    runPrimFunc(funcOf([out], rooted(body)), [arr]);
    expect(Array.from(arr)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("gives a loop-nested block a fresh zeroed alloc_buffer per instance", () => {
    // Each instance accumulates into its own scratch buffer: 0 + i, never the previous instance's value.
    const out = declBuffer("Out", [4], "float32");
    const tmp = declBuffer("tmp", [1], "float32");
    const [i, vi] = [v("i"), v("vi")];
    const blk = ir.block({
      name: "B",
      iterVars: [ir.iterVar(vi, ir.rangeFromExtent(4), "spatial")],
      allocBuffers: [tmp],
      body: ir.seq([store(tmp, ir.add(load(tmp, [0]), ir.cast("float32", vi)), [0]), store(out, load(tmp, [0]), [vi])]),
    });
    const arr = new Float32Array(4);
    runPrimFunc(funcOf([out], rooted(forLoop(i, 4, ir.blockRealize([i], true, blk)))), [arr]);
    expect(Array.from(arr)).toEqual([0, 1, 2, 3]);
  });

  it("views a sub-region through match_buffer", () => {
    // Sub = A[1:3, 2:5]; Sub[x, y] = 10 * x + y
    const A = declBuffer("A", [4, 6], "int32");
    const [sOff, s0] = [v("sub_offset"), v("sub_s0")];
    const Sub = declBuffer("Sub", [2, 3], "int32", { elemOffset: sOff, strides: [s0, 1] });
    const [x, y] = [v("x"), v("y")];
    const blk = ir.block({
      name: "view",
      matchBuffers: [{ buffer: Sub, source: bufferRegion(A, [ir.range(1, 2), ir.range(2, 3)]) }],
      body: forLoop(x, 2, forLoop(y, 3, store(Sub, ir.add(ir.mul(x, 10), y), [x, y]))),
    });
    const arr = new Int32Array(24).fill(-1);
    runPrimFunc(funcOf([A], rooted(ir.blockRealize([], true, blk))), [arr]);
    const rows = [0, 1, 2, 3].map((r) => Array.from(arr.slice(r * 6, r * 6 + 6)));
    expect(rows).toEqual([
      [-1, -1, -1, -1, -1, -1],
      [-1, -1, 0, 1, 2, -1],
      [-1, -1, 10, 11, 12, -1],
      [-1, -1, -1, -1, -1, -1],
    ]);
  });
});

describe("statements", () => {
  it("runs loops of every kind, thread-bound ones as serial loops", () => {
    for (const kind of ["serial", "parallel", "vectorized", "unrolled"] as const) {
      const { func } = fill1d(5, (i) => ir.mul(i, i), { kind });
      const arr = new Int32Array(5);
      runPrimFunc(func, [arr]);
      expect(Array.from(arr)).toEqual([0, 1, 4, 9, 16]);
    }
    const out = declBuffer("Out", [2, 3], "int32");
    const [bx, tx] = [v("blockIdx_x"), v("threadIdx_x")];
    const body = forLoop(bx, 2, forLoop(tx, 3, store(out, ir.add(ir.mul(bx, 3), tx), [bx, tx]), { kind: "thread_binding", threadTag: "threadIdx.x" }), {
      kind: "thread_binding",
      threadTag: "blockIdx.x",
    });
    const arr = new Int32Array(6);
    const compiled = compilePrimFunc(funcOf([out], body));
    compiled.run([arr]);
    expect(Array.from(arr)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(compiled.source).toContain("thread_binding threadIdx.x: run as a serial loop");
  });

  it("runs a thread_extent launch of lowered code as a loop over the thread variable", () => {
    const out = declBuffer("Out", [4], "int32");
    const tx = v("threadIdx.x");
    const body = ir.attrStmt("thread_extent", tx, 4, store(out, ir.mul(tx, 3), [tx]));
    const arr = new Int32Array(4);
    runPrimFunc(funcOf([out], body), [arr]);
    expect(Array.from(arr)).toEqual([0, 3, 6, 9]);
  });

  it("honours a non-zero loop min and a symbolic extent", () => {
    const n = v("n");
    const out = declBuffer("Out", [8], "int32");
    const i = v("i");
    const func = funcOf([out], forLoop(i, ir.sub(n, 2), store(out, 1, [i]), { min: 2 }), [n]);
    const arr = new Int32Array(8);
    runPrimFunc(func, [arr, 6]);
    expect(Array.from(arr)).toEqual([0, 0, 1, 1, 1, 1, 0, 0]);
  });

  it("runs IfThenElse, LetStmt, Evaluate, AttrStmt and SeqStmt", () => {
    const out = declBuffer("Out", [6], "int32");
    const [i, sq] = [v("i"), v("sq")];
    const body = ir.attrStmt(
      "pragma_test",
      undefined,
      0,
      forLoop(
        i,
        6,
        ir.letStmt(
          sq,
          ir.mul(i, i),
          ir.seq([ir.evaluate(ir.storageSync("shared")), ir.evaluate(0), ir.ifThenElseStmt(ir.lt(i, 3), store(out, sq, [i]), store(out, ir.sub(0, sq), [i]))]),
        ),
      ),
    );
    const arr = new Int32Array(6);
    const compiled = compilePrimFunc(funcOf([out], body));
    compiled.run([arr]);
    expect(Array.from(arr)).toEqual([0, 1, 4, -9, -16, -25]);
    expect(compiled.source).toContain("no-op");
  });

  it("gives Allocate fresh storage and lets DeclBuffer views share it", () => {
    // tmp (2x3) is written through a flat 6-element DeclBuffer view and read back in 2-D.
    const out = declBuffer("Out", [2, 3], "float32");
    const tmp = declBuffer("tmp", [2, 3], "float32", { scope: "local" });
    const flat = declBuffer("tmp_flat", [6], "float32", { data: tmp.data, scope: "local" });
    const [i, r, c] = [v("i"), v("r"), v("c")];
    const body = ir.allocate(
      tmp,
      declBufferStmt(
        flat,
        ir.seq([forLoop(i, 6, store(flat, ir.cast("float32", ir.mul(i, 2)), [i])), forLoop(r, 2, forLoop(c, 3, store(out, load(tmp, [r, c]), [r, c])))]),
      ),
    );
    const arr = new Float32Array(6);
    runPrimFunc(funcOf([out], body), [arr]);
    expect(Array.from(arr)).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it("stores and loads vectors through Ramp indices and Broadcast values", () => {
    // Out[ramp(4*i, 1, 4)] = In[ramp(4*i + 3, -1, 4)] + broadcast(100, 4): reverse within groups of 4
    const In = declBuffer("In", [8], "int32");
    const Out = declBuffer("Out", [8], "int32");
    const i = v("i");
    const value = ir.add(load(In, [ir.ramp(ir.add(ir.mul(i, 4), 3), -1, 4)]), ir.broadcast(100, 4));
    const body = forLoop(i, 2, store(Out, value, [ir.ramp(ir.mul(i, 4), 1, 4)]));
    const input = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
    const output = new Int32Array(8);
    runPrimFunc(funcOf([In, Out], body), [input, output]);
    expect(Array.from(output)).toEqual([103, 102, 101, 100, 107, 106, 105, 104]);
  });

  it("computes all lanes of a vector store before writing any", () => {
    // A[ramp(1, 1, 3)] = A[ramp(0, 1, 3)]: a shift by one, not a smear of A[0].
    const A = declBuffer("A", [4], "int32");
    const body = store(A, load(A, [ir.ramp(0, 1, 3)]), [ir.ramp(1, 1, 3)]);
    const arr = Int32Array.from([1, 2, 3, 4]);
    runPrimFunc(funcOf([A], body), [arr]);
    expect(Array.from(arr)).toEqual([1, 1, 2, 3]);
  });

  it("addresses strided buffers with an element offset", () => {
    // A 2x2 view into a 3x4 row-major array starting at element 5: elements 5, 6, 9, 10.
    const A = declBuffer("A", [2, 2], "float64", { strides: [4, 1], elemOffset: 5 });
    const [r, c] = [v("r"), v("c")];
    const body = forLoop(r, 2, forLoop(c, 2, store(A, ir.cast("float64", ir.add(ir.mul(r, 2), ir.add(c, 1))), [r, c])));
    const arr = new Float64Array(12);
    runPrimFunc(funcOf([A], body), [arr]);
    expect(Array.from(arr)).toEqual([0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]);
  });

  it("loads and stores bool, float16 and int64 buffers", () => {
    const flags = declBuffer("Flags", [3], "bool");
    const half = declBuffer("Half", [3], "float16");
    const big = declBuffer("Big", [3], "int64");
    const i = v("i");
    const body = forLoop(
      i,
      3,
      ir.seq([
        ir.ifThenElseStmt(load(flags, [i]), store(half, ir.floatImm(1 / 3, "float16"), [i])),
        store(flags, ir.not(load(flags, [i])), [i]),
        store(big, ir.mul(ir.cast("int64", i), ir.intImm(2 ** 40, "int64")), [i]),
      ]),
    );
    const [f, h, b] = [Uint8Array.from([1, 0, 1]), new Float32Array(3), new Float64Array(3)];
    runPrimFunc(funcOf([flags, half, big], body), [f, h, b]);
    expect(Array.from(f)).toEqual([0, 1, 0]);
    expect(Array.from(h)).toEqual([0.333251953125, 0, 0.333251953125]);
    expect(Array.from(b)).toEqual([0, 2 ** 40, 2 ** 41]);
  });

  it("infers a symbolic shape from the array length", () => {
    const n = v("n");
    const A = declBuffer("A", [n], "float32");
    const B = declBuffer("B", [n], "float32");
    const i = v("i");
    const func = funcOf([A, B], forLoop(i, n, store(B, ir.mul(load(A, [i]), 2), [i])));
    const b = new Float32Array(5);
    runPrimFunc(func, [Float32Array.from([1, 2, 3, 4, 5]), b]);
    expect(Array.from(b)).toEqual([2, 4, 6, 8, 10]);
    expect(() => runPrimFunc(func, [new Float32Array(5), new Float32Array(4)])).toThrow(
      /argument 1 \(B\): expected 5 elements for buffer float32\[n\] \(shape \[5\]\), got 4/,
    );
  });
});

describe("bounds checks", () => {
  const { func } = fill1d(4, (i) => i);
  const over = (() => {
    const A = declBuffer("A", [3, 4], "float32");
    const [i, j] = [v("i"), v("j")];
    return funcOf([A], forLoop(i, 3, forLoop(j, 5, store(A, 1, [i, j]))), [], "over");
  })();

  it("reports the buffer, the indices and the shape", () => {
    expect(() => runPrimFunc(over, [new Float32Array(12)])).toThrow(ExecutionError);
    expect(() => runPrimFunc(over, [new Float32Array(12)])).toThrow(
      "out-of-bounds store to buffer A: indices [0, 4] are outside its shape [3, 4] (in A[i, j])",
    );
  });

  it("names the block of a failing load and checks data-dependent indices", () => {
    const idx = declBuffer("Idx", [2], "int32");
    const src = declBuffer("Src", [3], "float32");
    const dst = declBuffer("Dst", [2], "float32");
    const [i, vi] = [v("i"), v("vi")];
    const blk = ir.block({
      name: "gather",
      iterVars: [ir.iterVar(vi, ir.rangeFromExtent(2), "spatial")],
      body: store(dst, load(src, [load(idx, [vi])]), [vi]),
    });
    const gather = funcOf([idx, src, dst], rooted(forLoop(i, 2, ir.blockRealize([i], true, blk))));
    const ok = new Float32Array(2);
    runPrimFunc(gather, [Int32Array.from([2, 0]), Float32Array.from([5, 6, 7]), ok]);
    expect(Array.from(ok)).toEqual([7, 5]);
    expect(() => runPrimFunc(gather, [Int32Array.from([1, -1]), new Float32Array(3), new Float32Array(2)])).toThrow(
      'out-of-bounds load from buffer Src: indices [-1] are outside its shape [3] (in Src[Idx[vi]] in block "gather")',
    );
  });

  it("drops checks that are statically in range and can be turned off", () => {
    expect(compilePrimFunc(func).source).not.toContain("$oob(");
    expect(compilePrimFunc(over).source).toContain("$oob(");
    expect(compilePrimFunc(over, { boundsCheck: false }).source).not.toContain("$oob(");
  });
});

import { describe, expect, it } from "vitest";
import {
  type Block,
  type BlockRealize,
  type For,
  type PrimFunc,
  type Stmt,
  IRError,
  add,
  buildPrimFunc,
  floatImm,
  forEachStmt,
  gt,
  lt,
  mul,
} from "../../src/index.js";
import { regionOf } from "../../src/builder/index.js";

function blocks(func: PrimFunc): Block[] {
  const out: Block[] = [];
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize") out.push(s.block);
  });
  return out;
}

function realizeOf(func: PrimFunc, name: string): BlockRealize {
  let found: BlockRealize | undefined;
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize" && s.block.name === name) found = s;
  });
  if (found === undefined) throw new Error(`no block ${name}`);
  return found;
}

function loops(s: Stmt): For[] {
  const out: For[] = [];
  forEachStmt(s, (x) => {
    if (x.kind === "For") out.push(x);
  });
  return out;
}

const vadd = () =>
  buildPrimFunc("vadd", ({ param, grid, block, axis, store, load }) => {
    const A = param("A", [16]);
    const B = param("B", [16]);
    const C = param("C", [16]);
    grid([16], (i) => {
      block("C", () => {
        const [vi] = axis.remap("S", [i]);
        store(C, [vi!], add(load(A, [vi!]), load(B, [vi!])));
      });
    });
  });

describe("buildPrimFunc", () => {
  it("declares buffer params in order, with global_symbol", () => {
    const f = vadd();
    expect(f.params.map((p) => p.name)).toEqual(["A", "B", "C"]);
    expect(f.params.every((p) => p.dtype === "handle")).toBe(true);
    expect([...f.bufferMap.values()].map((b) => b.name)).toEqual(["A", "B", "C"]);
    expect(f.attrs).toEqual({ global_symbol: "vadd" });
  });

  it("wraps a body with blocks in a root block with no iterators and empty regions", () => {
    const f = vadd();
    expect(f.body.kind).toBe("BlockRealize");
    const root = (f.body as BlockRealize).block;
    expect(root.name).toBe("root");
    expect(root.iterVars).toEqual([]);
    expect(root.reads).toEqual([]);
    expect(root.writes).toEqual([]);
    expect(root.body.kind).toBe("For");
  });

  it("infers reads and writes of blocks", () => {
    const blk = realizeOf(vadd(), "C").block;
    expect(blk.reads.map((r) => r.buffer.name)).toEqual(["A", "B"]);
    expect(blk.writes.map((r) => r.buffer.name)).toEqual(["C"]);
    const v = blk.iterVars[0]!.var;
    expect(blk.writes[0]!.region[0]!.min).toBe(v);
  });

  it("names loops after the callback parameters and iterators v<loop>", () => {
    const f = vadd();
    const [loop] = loops(f.body);
    expect(loop!.loopVar.name).toBe("i");
    const r = realizeOf(f, "C");
    expect(r.block.iterVars[0]!.var.name).toBe("vi");
    expect(r.iterValues[0]).toBe(loop!.loopVar);
    expect(r.block.iterVars[0]!.dom.extent).toMatchObject({ kind: "IntImm", value: 16 });
  });

  it("does not insert a root block when there are no blocks and no allocations", () => {
    const f = buildPrimFunc("plain", ({ param, serial, store }) => {
      const A = param("A", [4]);
      serial(4, (i) => store(A, [i], 1));
    });
    expect(f.body.kind).toBe("For");
  });

  it("puts function-level allocations on the root block and block-level ones on the block", () => {
    const f = buildPrimFunc("allocs", ({ param, allocBuffer, block, store, load }) => {
      const A = param("A", [4]);
      const T0 = allocBuffer("T0", [4], "float32", "shared");
      block("inner", () => {
        const local = allocBuffer("local", [1], "float32", "local");
        store(local, [0], load(A, [0]));
        store(T0, [0], load(local, [0]));
      });
    });
    const root = (f.body as BlockRealize).block;
    expect(root.allocBuffers.map((b) => [b.name, b.scope])).toEqual([["T0", "shared"]]);
    const inner = realizeOf(f, "inner").block;
    expect(inner.allocBuffers.map((b) => b.name)).toEqual(["local"]);
    // The block's own allocation is not an access of the block.
    expect(inner.reads.map((r) => r.buffer.name)).toEqual(["A"]);
    expect(inner.writes.map((r) => r.buffer.name)).toEqual(["T0"]);
  });

  it("builds reductions with init, reduce iterators and regions without the output in reads", () => {
    const f = buildPrimFunc("mm", ({ param, grid, block, axis, init, store, load }) => {
      const A = param("A", [4, 8]);
      const B = param("B", [8, 6]);
      const C = param("C", [4, 6]);
      grid([4, 6, 8], (i, j, k) => {
        block("C", () => {
          const [vi, vj, vk] = axis.remap("SSR", [i, j, k]);
          init(() => store(C, [vi!, vj!], floatImm(0)));
          store(C, [vi!, vj!], add(load(C, [vi!, vj!]), mul(load(A, [vi!, vk!]), load(B, [vk!, vj!]))));
        });
      });
    });
    const blk = realizeOf(f, "C").block;
    expect(blk.iterVars.map((iv) => [iv.var.name, iv.iterType])).toEqual([
      ["vi", "spatial"],
      ["vj", "spatial"],
      ["vk", "reduce"],
    ]);
    expect(blk.init?.kind).toBe("BufferStore");
    expect(blk.reads.map((r) => r.buffer.name)).toEqual(["A", "B"]);
    expect(loops(f.body).map((l) => l.loopVar.name)).toEqual(["i", "j", "k"]);
  });

  it("supports loop kinds, thread bindings, where, if/else and explicit regions", () => {
    const f = buildPrimFunc("kinds", (b) => {
      const A = b.param("A", [64]);
      const B = b.param("B", [64]);
      b.threadBinding(2, "blockIdx.x", (bx) => {
        b.parallel(4, (p) => {
          b.unrolled(2, (u) => {
            b.vectorized(4, (v) => {
              b.block("B", () => {
                const vi = b.axis.spatial(64, add(mul(add(mul(add(mul(bx, 4), p), 2), u), 4), v));
                b.where(lt(vi, 60));
                b.reads(regionOf(A, [[0, 64]]));
                b.writes(regionOf(B, [vi]));
                b.ifThen(
                  gt(b.load(A, [vi]), 0),
                  () => b.store(B, [vi], b.load(A, [vi])),
                  () => b.store(B, [vi], 0),
                );
              });
            });
          });
        });
      });
    });
    const ls = loops(f.body);
    expect(ls.map((l) => [l.loopVar.name, l.forKind])).toEqual([
      ["bx", "thread_binding"],
      ["p", "parallel"],
      ["u", "unrolled"],
      ["v", "vectorized"],
    ]);
    expect(ls[0]!.threadTag).toBe("blockIdx.x");
    const r = realizeOf(f, "B");
    expect(r.predicate.kind).toBe("Binary");
    expect(r.block.body.kind).toBe("IfThenElse");
    expect(r.block.reads[0]!.region[0]!.extent).toMatchObject({ kind: "IntImm", value: 64 });
    expect(r.block.writes[0]!.region[0]!.min).toBe(r.block.iterVars[0]!.var);
    expect(r.block.iterVars[0]!.var.name).toBe("v0");
  });

  it("nests blocks and fills the outer block's regions from the inner one", () => {
    const f = buildPrimFunc("nested", ({ param, serial, block, axis, store, load }) => {
      const A = param("A", [8]);
      const B = param("B", [8]);
      block("outer", () => {
        axis.spatial(1, 0);
        serial(8, (i) => {
          block("inner", () => {
            const vi = axis.spatial(8, i);
            store(B, [vi], load(A, [vi]));
          });
        });
      });
    });
    expect(blocks(f).map((b) => b.name)).toEqual(["root", "outer", "inner"]);
    const outer = realizeOf(f, "outer").block;
    expect(outer.reads.map((r) => r.buffer.name)).toEqual(["A"]);
    expect(outer.writes.map((r) => r.buffer.name)).toEqual(["B"]);
  });

  it("treats a top-level block without iterators as the root block, as TVM's parser does", () => {
    const f = buildPrimFunc("own_root", ({ param, block, serial, axis, store }) => {
      const A = param("A", [4]);
      block("root", () => {
        serial(4, (i) => block("A", () => store(A, [axis.spatial(4, i)], 0)));
      });
    });
    expect(blocks(f).map((b) => b.name)).toEqual(["root", "A"]);
    const root = (f.body as BlockRealize).block;
    expect(root.reads).toEqual([]);
    expect(root.writes).toEqual([]);
  });

  it("supports private functions and extra attributes", () => {
    const f = buildPrimFunc(
      "p",
      ({ param, funcAttr }) => {
        param("A", [1]);
        funcAttr({ "tir.noalias": true });
      },
      { private: true },
    );
    expect(f.attrs).toEqual({ "tir.noalias": true });
  });

  it("reports misuse with IRErrors", () => {
    expect(() => buildPrimFunc("bad", ({ init }) => init(() => undefined))).toThrow(/init must be called directly inside a block/);
    expect(() =>
      buildPrimFunc("bad", ({ param, block, axis }) => {
        param("A", [4]);
        block("b", () => axis.remap("S", [{ kind: "Var", dtype: "int32", name: "x" }]));
      }),
    ).toThrow(/x is not the variable of an enclosing loop/);
    expect(() => buildPrimFunc("bad", ({ grid, block, axis }) => grid([2, 2], (i, j) => block("b", () => axis.remap("S", [i!, j!]))))).toThrow(
      /has 1 kinds but 2 loop variables/,
    );
    expect(() => buildPrimFunc("bad", ({ grid, block, axis }) => grid([2], (i) => block("b", () => axis.remap("X", [i!]))))).toThrow(
      /unknown iterator kind "X"/,
    );
    expect(() => buildPrimFunc("bad", ({ grid }) => grid([2, 2], (i) => void i))).toThrow(IRError);
    expect(() => buildPrimFunc("bad", ({ serial, param }) => serial(2, () => void param("A", [1])))).toThrow(/param must be called at function level/);
    expect(() =>
      buildPrimFunc("bad", ({ param, block, store, axis }) => {
        const A = param("A", [2]);
        block("b", () => {
          store(A, [0], 1);
          axis.spatial(2, 0);
        });
      }),
    ).toThrow(/declare iterators before/);
  });
});

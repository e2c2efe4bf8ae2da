import { describe, expect, it } from "vitest";
import {
  type Block,
  type BlockRealize,
  type For,
  type PrimFunc,
  IRError,
  add,
  and,
  buildPrimFunc,
  compute,
  createPrimFunc,
  floatImm,
  forEachStmt,
  gt,
  lt,
  mul,
  placeholder,
  reduceAxis,
  reduceSum,
  structuralEqual,
  te,
} from "../../src/index.js";
import { allOf, anyOf, commReducer, reduceMax, reduceMin } from "../../src/te/index.js";

function blocks(func: PrimFunc): Block[] {
  const out: Block[] = [];
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize" && s.block.name !== "root") out.push(s.block);
  });
  return out;
}

function loopNames(func: PrimFunc): string[] {
  const out: string[] = [];
  forEachStmt(func.body, (s) => {
    if (s.kind === "For") out.push((s as For).loopVar.name);
  });
  return out;
}

function teMatmul(n = 4, m = 5, l = 6) {
  const A = placeholder([n, l], "float32", "A");
  const B = placeholder([l, m], "float32", "B");
  const k = reduceAxis([0, l], "k");
  const C = compute([n, m], (i, j) => reduceSum(mul(A.at(i, k), B.at(k, j)), k), "C");
  return { A, B, C };
}

describe("TE tensors", () => {
  it("placeholder and compute carry shape, dtype and axis names", () => {
    const A = placeholder([3, 4], "float64", "A");
    const B = compute([3, 4], (x, y) => mul(A.at(x, y), 2), "B");
    expect(B.shape.map((s) => (s.kind === "IntImm" ? s.value : -1))).toEqual([3, 4]);
    expect(B.dtype).toBe("float64");
    expect(B.op.kind).toBe("ComputeOp");
    if (B.op.kind === "ComputeOp") {
      expect(B.op.axis.map((a) => a.var.name)).toEqual(["x", "y"]);
      expect(B.op.inputs).toEqual([A]);
    }
  });

  it("names rest-parameter axes i0, i1, … like TVM", () => {
    const A = placeholder([2, 3, 4], "float32", "A");
    const B = compute([2, 3, 4], (...idx) => A.at(...idx), "B");
    if (B.op.kind !== "ComputeOp") throw new Error("not a compute");
    expect(B.op.axis.map((a) => a.var.name)).toEqual(["i0", "i1", "i2"]);
  });

  it("A.at returns a BufferLoad of the tensor's buffer", () => {
    const A = placeholder([2], "int32", "A");
    const e = A.at(1);
    expect(e.kind).toBe("BufferLoad");
    expect(e.buffer).toBe(A.buffer);
    expect(e.dtype).toBe("int32");
  });
});

describe("createPrimFunc", () => {
  it("lowers matmul like te.create_prim_func", () => {
    const { A, B, C } = teMatmul();
    const f = createPrimFunc([A, B, C]);
    expect(f.params.map((p) => p.name)).toEqual(["A", "B", "C"]);
    expect([...f.bufferMap.values()]).toEqual([A.buffer, B.buffer, C.buffer]);
    expect(f.attrs).toEqual({ global_symbol: "main", "tir.noalias": true });
    const [blk] = blocks(f);
    expect(blk!.name).toBe("C");
    expect(blk!.iterVars.map((iv) => [iv.var.name, iv.iterType])).toEqual([
      ["v_i", "spatial"],
      ["v_j", "spatial"],
      ["v_k", "reduce"],
    ]);
    expect(loopNames(f)).toEqual(["i", "j", "k"]);
    expect(blk!.init).toMatchObject({ kind: "BufferStore", value: { kind: "FloatImm", value: 0 } });
    expect(blk!.reads.map((r) => r.buffer.name)).toEqual(["A", "B"]);
    expect(blk!.writes.map((r) => r.buffer.name)).toEqual(["C"]);
    const [vi, vj, vk] = blk!.iterVars.map((iv) => iv.var);
    expect(blk!.reads[0]!.region.map((r) => r.min)).toEqual([vi, vk]);
    expect(blk!.writes[0]!.region.map((r) => r.min)).toEqual([vi, vj]);
    expect((f.body as BlockRealize).block.allocBuffers).toEqual([]);
  });

  it("is structurally equal to the same matmul written with the builder", () => {
    const { A, B, C } = teMatmul();
    const fromTE = createPrimFunc([A, B, C], { name: "mm" });
    const fromBuilder = buildPrimFunc(
      "mm",
      ({ param, grid, block, axis, init, store, load }) => {
        const a = param("A", [4, 6]);
        const b = param("B", [6, 5]);
        const c = param("C", [4, 5]);
        grid([4, 5, 6], (i, j, k) => {
          block("C", () => {
            const [vi, vj, vk] = axis.remap("SSR", [i, j, k]);
            init(() => store(c, [vi!, vj!], floatImm(0)));
            store(c, [vi!, vj!], add(load(c, [vi!, vj!]), mul(load(a, [vi!, vk!]), load(b, [vk!, vj!]))));
          });
        });
      },
      { attrs: { "tir.noalias": true } },
    );
    expect(structuralEqual(fromTE, fromBuilder)).toBe(true);
  });

  it("allocates intermediate tensors on the root block and orders blocks producer-first", () => {
    const A = placeholder([8], "float32", "A");
    const B = compute([8], (i) => mul(A.at(i), 2), "B");
    const C = compute([8], (i) => add(B.at(i), 1), "C");
    const f = createPrimFunc([A, C], { name: "two_stage" });
    const root = (f.body as BlockRealize).block;
    expect(root.name).toBe("root");
    expect(root.allocBuffers).toEqual([B.buffer]);
    expect(blocks(f).map((b) => b.name)).toEqual(["B", "C"]);
    expect(f.params.map((p) => p.name)).toEqual(["A", "C"]);
  });

  it("makes block names unique", () => {
    const A = placeholder([4], "float32", "A");
    const B = compute([4], (i) => A.at(i), "T");
    const C = compute([4], (i) => B.at(i), "T");
    expect(blocks(createPrimFunc([A, C])).map((b) => b.name)).toEqual(["T", "T_1"]);
  });

  it("uses the reducer's identity: max → lowest float, min → highest, custom product → 1", () => {
    const A = placeholder([4, 4], "float32", "A");
    const k = reduceAxis(4, "k");
    const mx = compute([4], (i) => reduceMax(A.at(i, k), k), "mx");
    const mn = compute([4], (i) => reduceMin(A.at(i, k), k), "mn");
    const prod = commReducer(
      (x, y) => mul(x, y),
      (dt) => floatImm(1, dt),
      "prod",
    );
    const pr = compute([4], (i) => prod(A.at(i, k), k), "pr");
    const inits = [mx, mn, pr].map((t) => blocks(createPrimFunc([A, t]))[0]!.init);
    expect(inits.map((s) => (s?.kind === "BufferStore" && s.value.kind === "FloatImm" ? s.value.value : NaN))).toEqual([
      -3.4028234663852886e38, 3.4028234663852886e38, 1,
    ]);
    const update = blocks(createPrimFunc([A, pr]))[0]!.body;
    expect(update).toMatchObject({ kind: "BufferStore", value: { kind: "Binary", op: "mul" } });
  });

  it("turns a reduction's where condition into if_then_else with the identity", () => {
    const A = placeholder([4, 4], "float32", "A");
    const k = reduceAxis(4, "k");
    const B = compute([4], (i) => te.sum(A.at(i, k), k, lt(k, i)), "B");
    const blk = blocks(createPrimFunc([A, B]))[0]!;
    expect(blk.body).toMatchObject({
      kind: "BufferStore",
      value: { kind: "Binary", op: "add", b: { kind: "Call", op: "if_then_else" } },
    });
    expect(blk.init).toBeDefined();
  });

  it("gives a scalar output a unit block iterator, as TVM does", () => {
    const A = placeholder([4], "float32", "A");
    const k = reduceAxis(4, "k");
    const S = compute([], () => reduceSum(A.at(k), k), "S");
    const blk = blocks(createPrimFunc([A, S]))[0]!;
    expect(blk.iterVars.map((iv) => [iv.var.name, iv.iterType])).toEqual([["v_k", "reduce"]]);
  });

  it("combines conditions with all/any", () => {
    const A = placeholder([4], "float32", "A");
    const B = compute([4], (i) => te.ifThenElse(allOf(gt(i, 0), lt(i, 3)), A.at(i), 0), "B");
    expect(B.dtype).toBe("float32");
    const cond = anyOf(lt(1, 2), gt(1, 2), lt(2, 3));
    expect(cond).toMatchObject({ kind: "Binary", op: "or", dtype: "bool" });
    expect(te.all(lt(1, 2))).toMatchObject({ kind: "Binary", op: "lt" });
  });
});

describe("TE errors", () => {
  it("rejects a lambda whose arity differs from the shape", () => {
    const A = placeholder([2, 2], "float32", "A");
    expect(() => compute([2, 2], (_i) => A.at(0, 0), "B")).toThrow(/takes 1 index but the shape has 2 dimensions/);
    expect(() => compute([2], (i, j) => A.at(i, j), "B")).toThrow(IRError);
  });

  it("rejects a reduce axis used outside a reduction", () => {
    const A = placeholder([4, 4], "float32", "A");
    const k = reduceAxis(4, "k");
    expect(() => compute([4], (i) => A.at(i, k), "B")).toThrow(/reduce axis k is used outside a reduction/);
    const k2 = reduceAxis(4, "k2");
    expect(() => compute([4], (i) => reduceSum(A.at(k2, k), k), "B")).toThrow(/reduce axis k2/);
  });

  it("rejects reductions over non-reduce variables and nested reductions", () => {
    const A = placeholder([4, 4], "float32", "A");
    const k = reduceAxis(4, "k");
    expect(() => compute([4, 4], (i, j) => reduceSum(A.at(i, j), j), "B")).toThrow(/j is not a reduce axis/);
    expect(() => compute([4], (i) => add(reduceSum(A.at(i, k), k) as never, 1), "B")).toThrow(/only be the whole body/);
  });

  it("rejects mismatched dtypes", () => {
    const A = placeholder([4], "float32", "A");
    const k = reduceAxis(4, "k");
    expect(() => compute([1], () => reduceSum(gt(A.at(k), 0), k), "B")).toThrow(/cannot reduce bool/);
    expect(() => compute([4], (i) => and(A.at(i), true), "B")).toThrow(/must be bool/);
    const bad = commReducer(
      (x, y) => lt(x, y),
      (dt) => floatImm(0, dt),
      "bad",
    );
    expect(() => compute([1], () => bad(A.at(k), k), "B")).toThrow(/combiner returns bool for float32/);
    expect(() => compute([4], (i) => reduceSum(A.at(k), k, A.at(i)), "B")).toThrow(/where condition must be bool/);
  });

  it("rejects wrong indexing, bad shapes and bad argument lists", () => {
    const A = placeholder([4, 4], "float32", "A");
    expect(() => A.at(1)).toThrow(/A has 2 dimensions but was indexed with 1 index/);
    expect(() => placeholder([0, 2], "float32", "Z")).toThrow(/extents must be positive/);
    expect(() => reduceAxis([3, 3], "r")).toThrow(/non-empty/);
    const B = compute([4, 4], (i, j) => A.at(j, i), "B");
    expect(() => createPrimFunc([B])).toThrow(/placeholder A is used by the computation but is not in the argument list/);
    expect(() => createPrimFunc([A, B, A])).toThrow(/appears twice/);
    expect(() => createPrimFunc([A])).toThrow(/nothing to compute/);
    expect(() => createPrimFunc([A, {} as never])).toThrow(/argument 1 is not a TE tensor/);
    expect(() => te.all()).toThrow(/at least one condition/);
  });
});

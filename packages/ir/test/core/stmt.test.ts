import { describe, expect, it } from "vitest";
import { declBuffer, withBuffer } from "../../src/buffer.js";
import { add, bufferLoad, floatImm, lt, variable } from "../../src/expr.js";
import { entryFunctionName, irModule, primFunc } from "../../src/func.js";
import { substituteStmt, forEachStmt, IRMutator } from "../../src/functor.js";
import { block, blockRealize, bufferStore, evaluate, forLoop, ifThenElseStmt, iterVar, rangeFromExtent, seq, type Stmt } from "../../src/stmt.js";

function vectorAdd() {
  const a = variable("a", "handle");
  const b = variable("b", "handle");
  const A = declBuffer("A", [16]);
  const B = declBuffer("B", [16]);
  const i = variable("i");
  const vi = variable("vi");
  const blk = block({
    name: "add",
    iterVars: [iterVar(vi, rangeFromExtent(16), "spatial")],
    body: bufferStore(B, add(bufferLoad(A, [vi]), floatImm(1)), [vi]),
  });
  const body = forLoop(i, 16, blockRealize([i], true, blk));
  return {
    func: primFunc(
      [a, b],
      new Map([
        [a, A],
        [b, B],
      ]),
      body,
    ),
    A,
    B,
    i,
    vi,
  };
}

describe("statement constructors", () => {
  it("checks store arity and value dtype", () => {
    const A = declBuffer("A", [4], "int32");
    expect(() => bufferStore(A, floatImm(1), [0])).toThrow("value has dtype float32 but the buffer holds int32");
    expect(() => bufferStore(A, 1, [0, 0])).toThrow("2 indices given");
    expect(bufferStore(A, 1, [0]).value).toMatchObject({ kind: "IntImm", dtype: "int32" });
  });

  it("flattens sequences", () => {
    const e = evaluate(0);
    const s = seq([e, seq([e, e]) as Stmt]);
    expect(s.kind === "SeqStmt" && s.seq.length).toBe(3);
    expect(seq([e])).toBe(e);
  });

  it("checks loops, ifs and block bindings", () => {
    const i = variable("i");
    expect(() => forLoop(i, 4, evaluate(0), { kind: "thread_binding" })).toThrow("needs a thread tag");
    expect(() => ifThenElseStmt(i, evaluate(0))).toThrow("condition must be bool");
    const blk = block({ name: "b", iterVars: [iterVar(variable("v"), rangeFromExtent(4), "spatial")], body: evaluate(0) });
    expect(() => blockRealize([], true, blk)).toThrow("0 bindings given for 1 iterators");
    expect(() => blockRealize([i], i, blk)).toThrow("predicate must be bool");
  });

  it("builds functions and modules", () => {
    const { func } = vectorAdd();
    const mod = irModule({ main: func });
    expect(entryFunctionName(mod)).toBe("main");
    expect(() => entryFunctionName(irModule({ f: func, g: func }))).toThrow('none is named "main"');
    expect(() => primFunc([], new Map([[variable("a", "handle"), declBuffer("A", [1])]]), evaluate(0))).toThrow("not a parameter");
  });
});

describe("traversal", () => {
  it("visits every statement and shares unchanged subtrees", () => {
    const { func } = vectorAdd();
    const kinds: string[] = [];
    forEachStmt(func.body, (s) => {
      kinds.push(s.kind);
    });
    expect(kinds).toEqual(["For", "BlockRealize", "BufferStore"]);
    const outer: string[] = [];
    forEachStmt(func.body, (s) => {
      outer.push(s.kind);
      return s.kind !== "BlockRealize";
    });
    expect(outer).toEqual(["For", "BlockRealize"]);
    expect(new IRMutator().visitStmt(func.body)).toBe(func.body);
  });

  it("substitutes variables and remaps buffers", () => {
    const { func, i, A } = vectorAdd();
    const j = variable("j");
    const out = substituteStmt(func.body, new Map([[i, j]]));
    expect(out).not.toBe(func.body);
    const realize = out.kind === "For" ? out.body : undefined;
    expect(realize?.kind === "BlockRealize" && realize.iterValues[0]).toBe(j);

    const A2 = withBuffer(A, { name: "A_shared", scope: "shared" });
    expect(A2.data).not.toBe(A.data);
    class Swap extends IRMutator {
      override mapBuffer(b: typeof A) {
        return b === A ? A2 : b;
      }
    }
    const swapped = new Swap().visitStmt(func.body);
    const loads: string[] = [];
    forEachStmt(swapped, (s) => {
      if (s.kind === "BufferStore" && s.value.kind === "Binary" && s.value.a.kind === "BufferLoad") loads.push(s.value.a.buffer.name);
    });
    expect(loads).toEqual(["A_shared"]);
    expect(lt(i, 2).dtype).toBe("bool");
  });
});

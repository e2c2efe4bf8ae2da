import { describe, expect, it } from "vitest";
import { type Buffer, declBuffer } from "../../src/buffer.js";
import {
  type PrimExpr,
  add,
  broadcast,
  bufferLoad,
  call,
  cast,
  floatImm,
  floordiv,
  intImm,
  letExpr,
  lt,
  not,
  ramp,
  select,
  stringImm,
  sub,
  variable,
} from "../../src/expr.js";
import { primFunc } from "../../src/func.js";
import {
  type Stmt,
  allocate,
  attrStmt,
  block,
  blockRealize,
  bufferRegion,
  bufferStore,
  declBufferStmt,
  evaluate,
  forLoop,
  ifThenElseStmt,
  iterVar,
  letStmt,
  range,
  rangeFromExtent,
  seq,
} from "../../src/stmt.js";
import { structuralDiff, structuralEqual, structuralHash } from "../../src/structural/index.js";
import type { StructuralNode } from "../../src/structural/index.js";

const x = variable("x");
const y = variable("y");
const A = declBuffer("A", [8], "float32");

interface Case {
  name: string;
  lhs: StructuralNode;
  rhs: StructuralNode;
  path: string;
  description: string;
}

const exprCases: Case[] = [
  { name: "IntImm value", lhs: add(x, 1), rhs: add(x, 2), path: "expr.b", description: "lhs: 1 vs rhs: 2" },
  { name: "IntImm dtype", lhs: intImm(1, "int32"), rhs: intImm(1, "int64"), path: "expr", description: "lhs: 1 vs rhs: T.int64(1)" },
  { name: "FloatImm", lhs: floatImm(0), rhs: floatImm(1), path: "expr", description: "lhs: T.float32(0.0) vs rhs: T.float32(1.0)" },
  { name: "StringImm", lhs: stringImm("a"), rhs: stringImm("b"), path: "expr", description: 'lhs: "a" vs rhs: "b"' },
  { name: "var dtype", lhs: variable("v", "int32"), rhs: variable("v", "int64"), path: "expr", description: "var var dtype int32 vs int64 (v vs v)" },
  { name: "binary op", lhs: add(x, y), rhs: sub(x, y), path: "expr", description: "lhs: x + y vs rhs: x - y" },
  { name: "binary operand", lhs: floordiv(x, 4), rhs: floordiv(x, 8), path: "expr.b", description: "lhs: 4 vs rhs: 8" },
  { name: "Not", lhs: not(lt(x, 1)), rhs: not(lt(x, 2)), path: "expr.a.b", description: "lhs: 1 vs rhs: 2" },
  {
    name: "Select",
    lhs: select(lt(x, 1), x, y),
    rhs: select(lt(x, 1), y, x),
    path: "expr.trueValue",
    description: "var x vs y: lhs x is already mapped to rhs x",
  },
  { name: "Cast", lhs: cast("float32", x), rhs: cast("float16", x), path: "expr", description: 'lhs: T.Cast("float32", x) vs rhs: T.Cast("float16", x)' },
  { name: "BufferLoad index", lhs: bufferLoad(A, [x]), rhs: bufferLoad(A, [add(x, 1)]), path: "expr.indices[0]", description: "lhs: x vs rhs: x + 1" },
  { name: "Ramp lanes", lhs: ramp(x, 1, 4), rhs: ramp(x, 1, 8), path: "expr", description: "lhs: T.Ramp(x, 1, 4) vs rhs: T.Ramp(x, 1, 8)" },
  { name: "Broadcast value", lhs: broadcast(x, 4), rhs: broadcast(1, 4), path: "expr.value", description: "lhs: x vs rhs: 1" },
  { name: "Let value", lhs: letExpr(x, 1, add(x, y)), rhs: letExpr(x, 2, add(x, y)), path: "expr.value", description: "lhs: 1 vs rhs: 2" },
  {
    name: "Call op",
    lhs: call("float32", "exp", [floatImm(1)]),
    rhs: call("float32", "log", [floatImm(1)]),
    path: "expr",
    description: "lhs: T.exp(T.float32(1.0)) vs rhs: T.log(T.float32(1.0))",
  },
  {
    name: "same text, different dtype",
    lhs: add(cast("int64", x), cast("int64", y)),
    rhs: add(x, y),
    path: "expr",
    description: 'lhs: T.Cast("int64", x) + T.Cast("int64", y) vs rhs: x + y',
  },
];

const store = (b: Buffer, v: PrimExpr | number, i: PrimExpr | number = 0): Stmt => bufferStore(b, v, [i]);
const loop = (extent: number, opts: Parameters<typeof forLoop>[3] = {}, v = variable("j")): Stmt => forLoop(v, extent, store(A, 0, v), opts);
const realize = (fields: Partial<Parameters<typeof block>[0]>, predicate: PrimExpr | boolean = true): Stmt => {
  const vi = variable("vi");
  const blk = block({
    name: "relu",
    iterVars: [iterVar(vi, rangeFromExtent(8), "spatial")],
    writes: [bufferRegion(A, [range(vi, 1)])],
    body: store(A, 0, vi),
    ...fields,
  });
  return blockRealize([x], predicate, blk);
};

const stmtCases: Case[] = [
  { name: "BufferStore value", lhs: store(A, 1), rhs: store(A, 2), path: "stmt.value", description: "stored value T.float32(1.0) vs T.float32(2.0)" },
  {
    name: "BufferStore buffer dtype",
    lhs: store(A, 1),
    rhs: store(declBuffer("A", [8], "float16"), 1),
    path: "stmt.buffer",
    description: "buffer dtype float32 vs float16",
  },
  {
    name: "buffer scope",
    lhs: store(A, 1),
    rhs: store(declBuffer("A", [8], "float32", { scope: "shared" }), 1),
    path: "stmt.buffer",
    description: "buffer scope global vs shared",
  },
  {
    name: "buffer strides",
    lhs: store(declBuffer("A", [8], "float32", { strides: [2] }), 1),
    rhs: store(A, 1),
    path: "stmt.buffer",
    description: "number of buffer strides 1 vs 0",
  },
  {
    name: "buffer elem_offset",
    lhs: store(declBuffer("A", [8], "float32", { elemOffset: 4 }), 1),
    rhs: store(A, 1),
    path: "stmt.buffer.elemOffset",
    description: "buffer elem_offset 4 vs 0",
  },
  {
    name: "buffer mapping",
    lhs: seq([store(A, 1), store(A, 2)]),
    rhs: seq([store(A, 1), store(declBuffer("B", [8]), 2)]),
    path: "stmt[1].buffer",
    description: "buffer A vs B: lhs A is already mapped to rhs A",
  },
  {
    name: "SeqStmt length",
    lhs: seq([store(A, 1), store(A, 2)]),
    rhs: seq([store(A, 1), store(A, 2), store(A, 3)]),
    path: "stmt",
    description: "number of statements 2 vs 3",
  },
  {
    name: "statement kind",
    lhs: seq([store(A, 1), store(A, 2)]),
    rhs: seq([store(A, 1), evaluate(0)]),
    path: "stmt[1]",
    description: "statement kind BufferStore vs Evaluate",
  },
  {
    name: "IfThenElse else",
    lhs: ifThenElseStmt(lt(x, 1), store(A, 1)),
    rhs: ifThenElseStmt(lt(x, 1), store(A, 1), store(A, 2)),
    path: "stmt",
    description: "else branch absent vs present",
  },
  {
    name: "IfThenElse condition",
    lhs: ifThenElseStmt(lt(x, 1), store(A, 1)),
    rhs: ifThenElseStmt(lt(x, 2), store(A, 1)),
    path: "stmt.condition.b",
    description: "lhs: 1 vs rhs: 2",
  },
  { name: "loop extent", lhs: loop(2048), rhs: loop(1024), path: "stmt.for(j).extent", description: "loop extent 2048 vs 1024" },
  { name: "loop kind", lhs: loop(8, { kind: "parallel" }), rhs: loop(8), path: "stmt.for(j)", description: "loop kind parallel vs serial" },
  {
    name: "loop thread tag",
    lhs: loop(8, { kind: "thread_binding", threadTag: "threadIdx.x" }),
    rhs: loop(8, { kind: "thread_binding", threadTag: "blockIdx.x" }),
    path: "stmt.for(j)",
    description: "loop thread tag threadIdx.x vs blockIdx.x",
  },
  {
    name: "loop annotation",
    lhs: loop(8, { annotations: { pragma_unroll: 4 } }),
    rhs: loop(8, { annotations: { pragma_unroll: 8 } }),
    path: 'stmt.for(j).annotations["pragma_unroll"]',
    description: 'loop annotation "pragma_unroll" 4 vs 8',
  },
  {
    name: "loop var dtype",
    lhs: loop(8, {}, variable("j", "int64")),
    rhs: loop(8),
    path: "stmt.for(j).loopVar",
    description: "loop var var dtype int64 vs int32 (j vs j)",
  },
  { name: "Evaluate", lhs: evaluate(x), rhs: evaluate(1), path: "stmt.value", description: "evaluated value x vs 1" },
  { name: "LetStmt value", lhs: letStmt(y, 1, store(A, 0, y)), rhs: letStmt(y, 2, store(A, 0, y)), path: "stmt.value", description: "let value 1 vs 2" },
  {
    name: "Allocate buffer shape",
    lhs: allocate(declBuffer("T", [4]), evaluate(0)),
    rhs: allocate(declBuffer("T", [8]), evaluate(0)),
    path: "stmt.buffer.shape[0]",
    description: "buffer shape 4 vs 8",
  },
  {
    name: "DeclBuffer vs Allocate",
    lhs: declBufferStmt(A, evaluate(0)),
    rhs: allocate(A, evaluate(0)),
    path: "stmt",
    description: "statement kind DeclBuffer vs Allocate",
  },
  {
    name: "AttrStmt key",
    lhs: attrStmt("thread_extent", x, 8, evaluate(0)),
    rhs: attrStmt("pragma", x, 8, evaluate(0)),
    path: "stmt",
    description: 'attr key "thread_extent" vs "pragma"',
  },
  {
    name: "block predicate",
    lhs: realize({}, lt(x, 4)),
    rhs: realize({}, true),
    path: 'stmt.block("relu").predicate',
    description: "block predicate x < 4 vs T.bool(True)",
  },
  {
    name: "block iter type",
    lhs: realize({}),
    rhs: realize({ iterVars: [iterVar(variable("vi"), rangeFromExtent(8), "reduce")] }),
    path: 'stmt.block("relu").iterVars[0]',
    description: "block iter type spatial vs reduce",
  },
  {
    name: "block iter domain",
    lhs: realize({}),
    rhs: realize({ iterVars: [iterVar(variable("vi"), rangeFromExtent(4), "spatial")] }),
    path: 'stmt.block("relu").iterVars[0].dom.extent',
    description: "block iter domain extent 8 vs 4",
  },
  {
    name: "block annotations",
    lhs: realize({ annotations: { schedule_rule: "a" } }),
    rhs: realize({ annotations: {} }),
    path: 'stmt.block("relu").annotations',
    description: 'block annotation keys ["schedule_rule"] vs []',
  },
  {
    name: "block annotation value",
    lhs: realize({ annotations: { k: [1, 2] } }),
    rhs: realize({ annotations: { k: [1, 3] } }),
    path: 'stmt.block("relu").annotations["k"][1]',
    description: 'block annotation "k" 2 vs 3',
  },
  {
    name: "block reads",
    lhs: realize({ reads: [bufferRegion(A, [range(0, 8)])] }),
    rhs: realize({ reads: [bufferRegion(A, [range(0, 4)])] }),
    path: 'stmt.block("relu").reads[0].region[0].extent',
    description: "region extent 8 vs 4",
  },
  { name: "block init", lhs: realize({ init: store(A, 0) }), rhs: realize({}), path: 'stmt.block("relu")', description: "block init present vs absent" },
  {
    name: "block alloc buffers",
    lhs: realize({ allocBuffers: [declBuffer("S", [4], "float32", { scope: "shared" })] }),
    rhs: realize({ allocBuffers: [declBuffer("S", [4], "float32", { scope: "local" })] }),
    path: 'stmt.block("relu").allocBuffers[0]',
    description: "buffer scope shared vs local",
  },
];

describe("structuralDiff points at the one differing field", () => {
  for (const c of [...exprCases, ...stmtCases]) {
    it(c.name, () => {
      expect(structuralEqual(c.lhs, c.rhs)).toBe(false);
      expect(structuralHash(c.lhs)).not.toBe(structuralHash(c.rhs));
      const d = structuralDiff(c.lhs, c.rhs);
      expect(d).toEqual({ path: c.path, description: c.description, message: `${c.path}: ${c.description}` });
    });
  }

  it("reports a parameter kind difference in a function", () => {
    const [a, n] = [variable("a", "handle"), variable("n", "handle")];
    const f = primFunc([a], new Map([[a, A]]), evaluate(0));
    const g = primFunc([n], new Map(), evaluate(0));
    expect(structuralDiff(f, g)?.message).toBe("func.params[0]: parameter kind buffer vs scalar");
  });
});

/**
 * The executor's two code shapes agree: each loop outlined into a function of its own with
 * reused zero-filled arrays for allocations inside loops (the default), and the whole function as
 * one (`outlineLoops: false`). Random programs of nested loops, lets, conditions, allocations
 * (block and `T.allocate`), integer arithmetic with divisions that may divide by zero, and
 * accesses that may fall out of bounds: both shapes leave the same bits in every buffer and throw
 * the same error.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { compilePrimFunc } from "../../src/exec/index.js";
import { constantStorageSize, usedIdentifiers } from "../../src/exec/outline-loops.js";
import { funcOf, rooted } from "./helpers.js";

type Expr =
  | { readonly t: "var"; readonly k: number }
  | { readonly t: "const"; readonly v: number }
  /** `safe`: a divisor is made 1..5 (most runs then get past their divisions). */
  | { readonly t: "bin"; readonly op: (typeof INT_OPS)[number]; readonly a: Expr; readonly b: Expr; readonly safe: boolean }
  | { readonly t: "load"; readonly target: number; readonly index: Expr; readonly wrap: boolean };

type Stmt =
  | { readonly t: "store"; readonly target: number; readonly index: Expr; readonly wrap: boolean; readonly value: Expr }
  | { readonly t: "for"; readonly extent: number; readonly body: Stmt }
  | { readonly t: "seq"; readonly a: Stmt; readonly b: Stmt }
  | { readonly t: "if"; readonly condition: Expr; readonly a: Stmt; readonly b: Stmt | undefined }
  | { readonly t: "let"; readonly value: Expr; readonly body: Stmt }
  | {
      readonly t: "alloc";
      readonly how: "block" | "allocate";
      readonly size: number;
      readonly dtype: "int32" | "float32" | "float16";
      readonly body: Stmt;
      /** Before and after the body, `Out[observe % 8] += L[observe % size]`: what the allocation holds shows in the output. */
      readonly observe: Expr;
    };

/** True nine times in ten. */
const mostly = fc.nat(9).map((k) => k > 0);

const INT_OPS = ["add", "sub", "mul", "min", "max", "floordiv", "floormod", "div", "mod"] as const;

const programArb = fc.letrec<{ expr: Expr; stmt: Stmt }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.nat(5).map<Expr>((k) => ({ t: "var", k })),
    fc.integer({ min: -3, max: 9 }).map<Expr>((v) => ({ t: "const", v })),
    fc.record({ op: fc.constantFrom(...INT_OPS), a: tie("expr"), b: tie("expr"), safe: mostly }).map<Expr>((r) => ({ t: "bin", ...r })),
    fc.record({ target: fc.nat(5), index: tie("expr"), wrap: mostly }).map<Expr>((r) => ({ t: "load", ...r })),
  ),
  stmt: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 3, arbitrary: fc.record({ target: fc.nat(5), index: tie("expr"), wrap: mostly, value: tie("expr") }).map<Stmt>((r) => ({ t: "store", ...r })) },
    { weight: 3, arbitrary: fc.record({ extent: fc.nat(4), body: tie("stmt") }).map<Stmt>((r) => ({ t: "for", ...r })) },
    { weight: 2, arbitrary: fc.record({ a: tie("stmt"), b: tie("stmt") }).map<Stmt>((r) => ({ t: "seq", ...r })) },
    {
      weight: 1,
      arbitrary: fc.record({ condition: tie("expr"), a: tie("stmt"), b: fc.option(tie("stmt"), { nil: undefined }) }).map<Stmt>((r) => ({ t: "if", ...r })),
    },
    { weight: 1, arbitrary: fc.record({ value: tie("expr"), body: tie("stmt") }).map<Stmt>((r) => ({ t: "let", ...r })) },
    {
      weight: 3,
      arbitrary: fc
        .record({
          how: fc.constantFrom("block", "allocate" as const),
          size: fc.integer({ min: 1, max: 6 }),
          dtype: fc.constantFrom("int32", "float32", "float16" as const),
          body: tie("stmt"),
          observe: tie("expr"),
        })
        .map<Stmt>((r) => ({ t: "alloc", ...r })),
    },
  ),
}));

/** The function's buffers: an int32 input, an int32 and a float32 output. */
const X = ir.declBuffer("X", [8], "int32");
const OUT = ir.declBuffer("Out", [8], "int32");
const OUT_F = ir.declBuffer("OutF", [8], "float32");

interface Scope {
  readonly vars: readonly ir.Var[];
  readonly buffers: readonly ir.Buffer[];
}

let fresh = 0;

function toExpr(e: Expr, scope: Scope): ir.PrimExpr {
  switch (e.t) {
    case "var":
      return scope.vars.length === 0 ? ir.intImm(e.k) : scope.vars[e.k % scope.vars.length]!;
    case "const":
      return ir.intImm(e.v);
    case "bin": {
      const b = toExpr(e.b, scope);
      const divides = e.op === "floordiv" || e.op === "floormod" || e.op === "div" || e.op === "mod";
      return ir.binary(e.op, toExpr(e.a, scope), divides && e.safe ? ir.binary("add", ir.binary("floormod", b, 5), 1) : b);
    }
    case "load": {
      const buffer = innermost(scope, e.target);
      const value = ir.bufferLoad(buffer, [index(e.index, e.wrap, buffer, scope)]);
      return buffer.dtype === "int32" ? value : ir.cast("int32", value);
    }
  }
}

/** The `k`-th buffer counted from the innermost allocation (so that allocations are used more than the parameters). */
function innermost(scope: Scope, k: number): ir.Buffer {
  return scope.buffers[scope.buffers.length - 1 - (k % scope.buffers.length)]!;
}

/** An index into `buffer`: wrapped into its extent, or as computed (then it may fall out of bounds). */
function index(e: Expr, wrap: boolean, buffer: ir.Buffer, scope: Scope): ir.PrimExpr {
  const i = toExpr(e, scope);
  return wrap ? ir.binary("floormod", i, buffer.shape[0]!) : i;
}

function toStmt(s: Stmt, scope: Scope): ir.Stmt {
  switch (s.t) {
    case "store": {
      const buffer = innermost(scope, s.target);
      const value = toExpr(s.value, scope);
      // Float stores scale the integer so that rounding to the buffer's precision matters.
      const stored = buffer.dtype === "int32" ? value : ir.binary("mul", ir.cast(buffer.dtype, value), ir.floatImm(0.3, buffer.dtype));
      return ir.bufferStore(buffer, stored, [index(s.index, s.wrap, buffer, scope)]);
    }
    case "for": {
      const v = ir.variable(`i${fresh++}`);
      return ir.forLoop(v, s.extent, toStmt(s.body, { ...scope, vars: [...scope.vars, v] }));
    }
    case "seq":
      return ir.seq([toStmt(s.a, scope), toStmt(s.b, scope)]);
    case "if":
      return ir.ifThenElseStmt(ir.lt(toExpr(s.condition, scope), 2), toStmt(s.a, scope), s.b === undefined ? undefined : toStmt(s.b, scope));
    case "let": {
      const v = ir.variable(`v${fresh++}`);
      return ir.letStmt(v, toExpr(s.value, scope), toStmt(s.body, { ...scope, vars: [...scope.vars, v] }));
    }
    case "alloc": {
      const buffer = ir.declBuffer(`L${fresh++}`, [s.size], s.dtype, { scope: "local" });
      const inner = { ...scope, buffers: [...scope.buffers, buffer] };
      const held = ir.bufferLoad(buffer, [index(s.observe, true, buffer, inner)]);
      const at = index(s.observe, true, OUT, inner);
      const observe = ir.bufferStore(OUT, ir.binary("add", ir.bufferLoad(OUT, [at]), s.dtype === "int32" ? held : ir.cast("int32", held)), [at]);
      const body = ir.seq([observe, toStmt(s.body, inner), observe]);
      if (s.how === "allocate") return ir.allocate(buffer, body);
      return ir.blockRealize([], true, ir.block({ name: `b${fresh++}`, body, allocBuffers: [buffer] }));
    }
  }
}

/** The buffers' bytes after a run, and the error it threw (its class and message). */
function outcome(func: ir.PrimFunc, outlineLoops: boolean, input: Int32Array): { bytes: number[][]; error: string | undefined } {
  const args = [input.slice(), new Int32Array(8), new Float32Array(8)];
  let error: string | undefined;
  try {
    compilePrimFunc(func, { outlineLoops }).run(args);
  } catch (err) {
    error = err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
  }
  return { bytes: args.map((a) => Array.from(new Uint8Array(a.buffer))), error };
}

describe("outlined loops against one function", () => {
  it("leave the same bits and throw the same errors on random programs", () => {
    let outlined = 0;
    let errors = 0;
    fc.assert(
      fc.property(programArb.stmt, fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 8, maxLength: 8 }), (program, xs) => {
        const func = funcOf([X, OUT, OUT_F], rooted(toStmt(program, { vars: [], buffers: [X, OUT, OUT_F] })));
        const input = Int32Array.from(xs);
        const single = outcome(func, false, input);
        expect(outcome(func, true, input)).toEqual(single);
        if (compilePrimFunc(func).source.includes("function $loop")) outlined++;
        if (single.error !== undefined) errors++;
      }),
      { numRuns: 400 },
    );
    // The programs exercise what they are meant to: outlined loops, and runs that fail.
    expect(outlined).toBeGreaterThan(100);
    expect(errors).toBeGreaterThan(20);
  });

  it("reuses one zero-filled array per allocation site inside a loop", () => {
    // for i in 0..3: alloc L[2]; Out[i] = L[1]; L[1] = i + 5 — every instance reads a fresh zero.
    const i = ir.variable("i");
    const L = ir.declBuffer("L", [2], "int32", { scope: "local" });
    const body = ir.seq([ir.bufferStore(OUT, ir.bufferLoad(L, [1]), [i]), ir.bufferStore(L, ir.binary("add", i, 5), [1])]);
    const func = funcOf([X, OUT, OUT_F], rooted(ir.forLoop(i, 3, ir.blockRealize([], true, ir.block({ name: "b", body, allocBuffers: [L] })))));
    const compiled = compilePrimFunc(func);
    expect(compiled.source).toMatch(/const \$scratch\w* = new Int32Array\(2\);/);
    const out = new Int32Array(8).fill(-1);
    compiled.run([new Int32Array(8), out, new Float32Array(8)]);
    compiled.run([new Int32Array(8), out, new Float32Array(8)]);
    expect(Array.from(out.slice(0, 3))).toEqual([0, 0, 0]);
  });
});

describe("constantStorageSize", () => {
  it("evaluates constant sizes and refuses anything else", () => {
    expect(constantStorageSize("16")).toBe(16);
    expect(constantStorageSize("((8 - 1) * 68) + (64 - 1) + 1")).toBe(540);
    expect(constantStorageSize("n * 4")).toBeUndefined();
    expect(constantStorageSize("(1 - 3)")).toBeUndefined();
    expect(constantStorageSize("((")).toBeUndefined();
  });
});

describe("usedIdentifiers", () => {
  it("lists the names code uses, not those in strings, comments, property names or number literals", () => {
    const lines = [
      'const x = $shadow1.read(i_0 + 1e-5, 2) + fround(y) + f("k_0 // z"); // T.attr(threadIdx.x, w)',
      "  D[(imul(i, 4) + 0x1f | 0)] = $poisoned($scratch, NaN).length + obj . field + [...rest];",
    ];
    expect(usedIdentifiers(lines)).toEqual([
      "const",
      "x",
      "$shadow1",
      "i_0",
      "fround",
      "y",
      "f",
      "D",
      "imul",
      "i",
      "$poisoned",
      "$scratch",
      "NaN",
      "obj",
      "rest",
    ]);
  });
});

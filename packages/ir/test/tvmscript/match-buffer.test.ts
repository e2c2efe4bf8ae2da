/**
 * A block's `T.match_buffer` as TVM's parser builds it: an omitted `elem_offset` with an
 * `offset_factor` is a fresh variable (in today's dialect; the course's keeps 0); an omitted shape
 * and dtype come from the matched region.
 */
import { describe, expect, it } from "vitest";
import { compilePrimFunc } from "../../src/exec/index.js";
import type { PrimFunc } from "../../src/func.js";
import { parsePrimFunc } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import type { Block } from "../../src/stmt.js";
import { structuralEqual } from "../../src/structural/index.js";
import { errorOf, roundTrip } from "./helpers.js";

function innerBlock(f: PrimFunc): Block {
  const body = f.body;
  if (body.kind !== "BlockRealize") throw new Error("expected a block");
  const inner = body.block.body;
  return inner.kind === "BlockRealize" ? inner.block : body.block;
}

const view = (decl: string, use = "T.evaluate(0)", dialect: "course" | "tvm" = "tvm") =>
  [
    dialect === "tvm" ? "@T.prim_func(s_tir=True)" : "@T.prim_func",
    'def f(A: T.Buffer((16, 64), "int32")):',
    `    with T.${dialect === "tvm" ? "sblock" : "block"}(""):`,
    "        T.reads()",
    "        T.writes(A[8:16, 32:64])",
    `        B = ${decl}`,
    `        ${use}`,
  ].join("\n");

describe("block match_buffer", () => {
  it("an omitted elem_offset with an offset_factor is a fresh variable, printed implicitly in today's dialect and used as B.elem_offset", () => {
    const { f } = roundTrip(
      view('T.match_buffer(A[8:16, 32:64], (8, 32), "int32", offset_factor=1)', 'T.evaluate(T.call_extern("int32", "consume", B.elem_offset))'),
    );
    const offset = innerBlock(f).matchBuffers[0]!.buffer.elemOffset;
    expect(offset.kind === "Var" && offset.name).toBe("B_elem_offset");
    const printed = printTVMScript(f, { dialect: "tvm" });
    expect(printed).toContain('B = T.match_buffer(A[8:16, 32:64], (8, 32), "int32", offset_factor=1)');
    expect(printed).toContain("B.elem_offset)");
    expect(printed).not.toContain("B_elem_offset = T.int32()");
  });

  it("without an offset_factor, with an explicit elem_offset, or in the course's dialect, the offset is as written", () => {
    const plain = roundTrip(view('T.match_buffer(A[8:16, 32:64], (8, 32), "int32")')).f;
    expect(innerBlock(plain).matchBuffers[0]!.buffer.elemOffset).toMatchObject({ kind: "IntImm", value: 0 });
    const given = roundTrip(view('T.match_buffer(A[8:16, 32:64], (8, 32), "int32", elem_offset=0, offset_factor=1)'));
    expect(innerBlock(given.f).matchBuffers[0]!.buffer.elemOffset).toMatchObject({ kind: "IntImm", value: 0 });
    expect(printTVMScript(given.f, { dialect: "tvm" })).toContain('"int32", elem_offset=0, offset_factor=1)');
    const course = roundTrip(view('T.match_buffer(A[8:16, 32:64], (8, 32), "int32", offset_factor=1)', "T.evaluate(0)", "course"));
    expect(innerBlock(course.f).matchBuffers[0]!.buffer.elemOffset).toMatchObject({ kind: "IntImm", value: 0 });
    expect(course.printed).toContain('B = T.match_buffer(A[8:16, 32:64], (8, 32), "int32", offset_factor=1)');
  });

  it("an omitted shape and dtype are the region's extents and its buffer's dtype, as in TVM", () => {
    const implicit = parsePrimFunc(view("T.match_buffer(A[8:16, 32:64])"));
    const explicit = parsePrimFunc(view('T.match_buffer(A[8:16, 32:64], shape=(8, 32), dtype="int32")'));
    expect(structuralEqual(implicit, explicit)).toBe(true);
  });

  it("a parameter's match_buffer still needs its shape", () => {
    const text = ["@T.prim_func", "def f(a: T.handle):", '    A = T.match_buffer(a, dtype="int32")', "    T.evaluate(0)"].join("\n");
    expect(errorOf(text)).toMatchObject({ reason: 'T.match_buffer is missing the argument "shape"', line: 3 });
  });
});

describe("parameter match_buffer with an offset_factor", () => {
  const text = [
    "@T.prim_func(s_tir=True)",
    "def f(a: T.handle):",
    '    A = T.match_buffer(a, (4,), "int32", offset_factor=1)',
    "    for i in range(4):",
    "        A[i] = i + A.elem_offset",
  ].join("\n");

  it("has a fresh offset variable in today's dialect, printed implicitly", () => {
    const { f } = roundTrip(text);
    const buffer = [...f.bufferMap.values()][0]!;
    expect(buffer.elemOffset.kind === "Var" && buffer.elemOffset.name).toBe("A_elem_offset");
    expect(printTVMScript(f, { dialect: "tvm" })).toContain('A = T.match_buffer(a, (4,), "int32", offset_factor=1)');
  });

  it("runs in the CPU executor with the offset 0 of an array's first element", () => {
    const out = new Int32Array(4);
    compilePrimFunc(parsePrimFunc(text)).run([out]);
    expect([...out]).toEqual([0, 1, 2, 3]);
  });
});

describe("private functions", () => {
  it("refuse a global_symbol attribute, as TVM does", () => {
    const text = [
      "@T.prim_func(private=True)",
      'def f(A: T.Buffer((4,), "float32")):',
      '    T.func_attr({"global_symbol": "f"})',
      "    A[0] = T.float32(1)",
    ].join("\n");
    expect(errorOf(text)).toMatchObject({ reason: 'function "f" is private (private=True) but T.func_attr gives it a global_symbol', line: 1 });
  });
});

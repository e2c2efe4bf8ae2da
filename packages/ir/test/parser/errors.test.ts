import { describe, expect, it } from "vitest";
import { TVMScriptSyntaxError, parsePrimFunc, parseTVMScript } from "../../src/parser/index.js";
import { TesseraError } from "../../src/errors.js";

function syntaxError(text: string, fileName = "t.py"): TVMScriptSyntaxError {
  try {
    parseTVMScript(text, { fileName });
  } catch (e) {
    if (e instanceof TVMScriptSyntaxError) return e;
    throw new Error(`expected a TVMScriptSyntaxError, got ${String(e)}`);
  }
  throw new Error("expected the parse to fail");
}

function expectError(text: string, reason: string, line: number, column: number): void {
  const e = syntaxError(text);
  expect({ reason: e.reason, line: e.line, column: e.column }).toEqual({ reason, line, column });
}

/** A function whose block body is `lines` (each indented to the block's level). */
function inBlock(...lines: string[]): string {
  return [
    "@T.prim_func",
    'def f(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):',
    "    for i, j in T.grid(16, 16):",
    '        with T.block("b"):',
    '            vi, vj = T.axis.remap("SS", [i, j])',
    ...lines.map((l) => `            ${l}`),
  ].join("\n");
}

describe("TVMScript syntax errors", () => {
  it("formats file:line:col, the source line and a caret", () => {
    const e = syntaxError(inBlock("Z[vi, vj] = T.float32(0)"), "gemm.py");
    expect(e).toBeInstanceOf(TesseraError);
    expect(e.message).toBe(['gemm.py:6:13: error: unknown buffer "Z"', "     6 |             Z[vi, vj] = T.float32(0)", "       |             ^"].join("\n"));
    expect([e.fileName, e.line, e.column]).toEqual(["gemm.py", 6, 13]);
  });

  it("unknown name", () => {
    expectError(inBlock("A[vi, vj] = q + 1.0"), 'unknown name "q"', 6, 25);
  });

  it("unknown buffer", () => {
    expectError(inBlock("A[vi, vj] = Z[vi]"), 'unknown buffer "Z"', 6, 25);
  });

  it("wrong number of indices", () => {
    expectError(inBlock("A[vi] = B[vi]"), 'buffer "A" has 2 dimensions but 1 index was given', 6, 13);
    expectError(inBlock("A[vi, vj] = B[vi, vj]"), 'buffer "B" has 1 dimension but 2 indices were given', 6, 25);
  });

  it("wrong dtype literal", () => {
    expectError(inBlock("A[vi, vj] = T.float33(0)"), 'unknown dtype "float33"', 6, 25);
    expectError('@T.prim_func\ndef f(A: T.Buffer((4,), "flaot32")):\n    pass\n', 'unknown dtype "flaot32"', 2, 25);
    expectError(inBlock('A[vi, vj] = T.Cast("f32", B[vi])'), 'unknown dtype "f32"', 6, 32);
  });

  it("T.axis.remap kind string length mismatch", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((16, 16), "float32")):',
      "    for i, j in T.grid(16, 16):",
      '        with T.block("b"):',
      '            vi, vj = T.axis.remap("S", [i, j])',
      "            A[vi, vj] = 0.0",
    ].join("\n");
    expectError(text, 'T.axis.remap: the kind string "S" has 1 letters but 2 loop variables were given', 5, 35);
  });

  it("unknown T. function", () => {
    expectError(inBlock("A[vi, vj] = T.foo(B[vi])"), 'unknown TVMScript function "T.foo"', 6, 25);
  });

  it("bad indentation", () => {
    expectError("@T.prim_func\ndef f():\n    x = 1\n      y = 2\n", "bad indentation: unexpected indent", 4, 7);
    expectError("@T.prim_func\ndef f():\nx = 1\n", "bad indentation: expected an indented block", 3, 1);
    expectError(
      "@T.prim_func\ndef f():\n    if 1 < 2:\n        pass\n  y = 1\n",
      "bad indentation: this line does not match any outer indentation level",
      5,
      3,
    );
  });

  it("unterminated string and bracket", () => {
    expectError(inBlock('T.block_attr({"k: 1})'), "unterminated string literal", 6, 27);
    expectError(inBlock("A[vi, vj] = T.max(B[vi], 0.0"), 'unclosed "(": expected ")" before the end of the input', 6, 30);
  });

  it("unsupported Python constructs", () => {
    expectError(inBlock("try:", "    pass"), 'unsupported Python construct "try" in TVMScript', 6, 13);
    expectError(inBlock("while B[vi]:", "    pass"), "a while condition must be a boolean or integer expression, got float32", 6, 19);
    expectError(inBlock("def g():", "    pass"), 'unsupported Python construct "def" inside a function: TVMScript functions cannot be nested', 6, 13);
    expectError(inBlock("A[vi, vj] = 1.0 if vi else 2.0"), 'the condition of "a if c else b" must be a boolean, got int32', 6, 32);
  });

  it("missing @T.prim_func", () => {
    expectError('def f(A: T.Buffer((4,), "float32")):\n    pass\n', 'missing @T.prim_func decorator on function "f"', 1, 1);
    expectError("@I.ir_module\nclass M:\n    def main():\n        pass\n", 'missing @T.prim_func decorator on function "main"', 3, 5);
  });

  it("T.reads outside a block", () => {
    expectError('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    T.reads(A[0])\n', "T.reads is only allowed inside a block", 3, 5);
  });

  it("duplicate parameter name", () => {
    expectError('@T.prim_func\ndef f(A: T.Buffer((4,), "float32"), A: T.Buffer((4,), "float32")):\n    pass\n', 'duplicate parameter name "A"', 2, 37);
  });

  it("integer true division is rejected with advice", () => {
    expectError(inBlock("A[vi, vj] = B[vi // 2 / 2]"), '"/" on integers is ambiguous in TVMScript: use "//" (floor division) or T.truncdiv', 6, 35);
  });

  it("dtype mismatches from the IR constructors point at the statement", () => {
    const e = syntaxError(inBlock("A[vi, vj] = T.Broadcast(T.float32(3), 4)"));
    expect([e.line, e.column]).toEqual([6, 13]);
    expect(e.reason).toMatch(/store to A: value has dtype float32x4/);
  });

  it("parsePrimFunc requires exactly one function", () => {
    const two = "@T.prim_func\ndef f():\n    pass\n@T.prim_func\ndef g():\n    pass\n";
    expect(() => parsePrimFunc(two)).toThrow(/expected exactly one function, found 2 \(f, g\)/);
    expect(() => parseTVMScript("x = 1\n")).toThrow(/no @T.prim_func function found/);
  });
});

/**
 * Deeply nested or huge input gives one positioned TVMScriptSyntaxError, never a stack overflow
 * (regression: 600 nested parentheses, a sum of 2,000 terms or 1,000 nested loops threw
 * RangeError: Maximum call stack size exceeded; a 50 MB line was quoted whole in the error).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TesseraError, compilePrimFunc, printTVMScript, randomArgs, structuralEqual } from "../../src/index.js";
import { TVMScriptSyntaxError, parseTVMScript } from "../../src/parser/index.js";
import { MAX_EXPRESSION_DEPTH, MAX_IR_NESTING, MAX_STATEMENT_NESTING } from "../../src/parser/nesting.js";

const HEAD = `# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
`;

/** Programs nested `n` deep in one way each. */
const SHAPES = {
  parens: (n: number) => `${HEAD}    C[0] = ${"(".repeat(n)}A[0]${")".repeat(n)}\n`,
  sum: (n: number) => `${HEAD}    C[0] = ${Array.from({ length: n + 1 }, () => "A[0]").join(" + ")}\n`,
  unary: (n: number) => `${HEAD}    C[0] = ${"-".repeat(n)}A[0]\n`,
  calls: (n: number) => `${HEAD}    C[0] = ${"T.abs(".repeat(n)}A[0]${")".repeat(n)}\n`,
  loops: (n: number) =>
    `${HEAD}${Array.from({ length: n }, (_, k) => `${"    ".repeat(k + 1)}for i${k} in range(1):\n`).join("")}${"    ".repeat(n + 1)}C[0] = A[0]\n`,
  grid: (n: number) =>
    `${HEAD}    for ${Array.from({ length: n }, (_, k) => `i${k}`).join(", ")} in T.grid(${Array(n).fill("1").join(", ")}):\n        C[0] = A[0]\n`,
  allocations: (n: number) => `${HEAD}${Array.from({ length: n }, (_, k) => `    X${k} = T.alloc_buffer((1,))\n`).join("")}    C[0] = A[0]\n`,
  ifs: (n: number) => `${HEAD}${Array.from({ length: n }, (_, k) => `${"    ".repeat(k + 1)}if A[0] > 0:\n`).join("")}${"    ".repeat(n + 1)}C[0] = A[0]\n`,
} as const;
type Shape = keyof typeof SHAPES;

function outcome(text: string): { ok: true } | { ok: false; error: unknown } {
  try {
    const mod = parseTVMScript(text, { fileName: "deep.py" });
    const func = mod.functions.get("main")!;
    // What the CLI does with a parsed program must not overflow either: print, re-parse, compare, run.
    const printed = printTVMScript(func);
    expect(structuralEqual(parseTVMScript(printed).functions.get("main")!, func)).toBe(true);
    compilePrimFunc(func).run(randomArgs(func, 0));
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

describe("nesting limits", () => {
  const tooDeep: [Shape, number][] = [
    ["parens", 600],
    ["sum", 2000],
    ["loops", 1000],
    ["unary", 1000],
    ["calls", 600],
    ["grid", 1000],
    ["allocations", 5000],
    ["ifs", 500],
  ];
  for (const [shape, n] of tooDeep) {
    it(`${shape} ${n} deep is a positioned "nesting deeper than" error`, () => {
      const r = outcome(SHAPES[shape](n));
      expect(r.ok).toBe(false);
      const error = (r as { error: unknown }).error;
      expect(error).toBeInstanceOf(TVMScriptSyntaxError);
      const e = error as TVMScriptSyntaxError;
      expect(e.message).toMatch(/^deep\.py:\d+:\d+: error: (expression )?nesting deeper than \d+/);
      expect(e.line).toBeGreaterThanOrEqual(5);
    });
  }

  it("programs just inside the limits parse, print, compare and run", () => {
    const near: [Shape, number][] = [
      ["parens", MAX_EXPRESSION_DEPTH - 10],
      ["sum", MAX_EXPRESSION_DEPTH - 10],
      ["unary", MAX_EXPRESSION_DEPTH - 10],
      ["loops", MAX_STATEMENT_NESTING - 5],
      ["grid", MAX_IR_NESTING - 10],
      ["allocations", MAX_IR_NESTING - 10],
    ];
    for (const [shape, n] of near) expect(outcome(SHAPES[shape](n)), `${shape} ${n}`).toEqual({ ok: true });
  });

  it("any shape at any depth either works or is a TVMScriptSyntaxError, never a RangeError (fast-check)", () => {
    const shapes = Object.keys(SHAPES) as Shape[];
    fc.assert(
      fc.property(fc.constantFrom(...shapes), fc.integer({ min: 0, max: 1500 }), (shape, n) => {
        const r = outcome(SHAPES[shape](n));
        if (!r.ok) {
          expect(r.error).toBeInstanceOf(TesseraError);
          expect(r.error).not.toBeInstanceOf(RangeError);
        }
      }),
      { numRuns: 60, seed: 7 },
    );
  });

  it("deep fragments spliced into a program never escape as anything but a TVMScriptSyntaxError (fast-check)", () => {
    const base = SHAPES.sum(3);
    const fragment = fc.tuple(fc.constantFrom("(", "[", "-", "not ", "T.abs(", "A[0] + ", "    for i in range(1):\n", "\n"), fc.integer({ min: 1, max: 3000 }));
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fragment, (at, [piece, times]) => {
        const i = Math.floor(at * base.length);
        const text = base.slice(0, i) + piece.repeat(times) + base.slice(i);
        try {
          parseTVMScript(text);
        } catch (e) {
          expect(e).toBeInstanceOf(TVMScriptSyntaxError);
        }
      }),
      { numRuns: 150, seed: 11 },
    );
  });
});

describe("error messages stay short for huge input", () => {
  it("a megabyte-long line is quoted around the column, not whole", () => {
    const line = `    C[0] = ${"A[0] + ".repeat(150_000)}@`;
    let message = "";
    try {
      parseTVMScript(`${HEAD}${line}\n`, { fileName: "huge.py" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^huge\.py:5:\d+: error: expression nesting deeper than 200 levels/);
    expect(message.length).toBeLessThan(600);
    const [, quoted, caret] = message.split("\n");
    expect(quoted).toMatch(/^ +5 \| …/);
    // The caret still points at the reported place (the operator past the limit) within the excerpt.
    expect(quoted![caret!.indexOf("^")]).toBe("+");
  });
});

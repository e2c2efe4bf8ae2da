import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type SimplifyOptions, simplifyFunc } from "../../src/lower/passes/index.js";
import { expectSameResults, expectStructurallyEqual, funcText, parse, script } from "./helpers.js";

const func = (body: string, params = 'A: T.Buffer((16,), "int32"), n: T.int32') => funcText(body, params);

function expectSimplified(before: string, expected: string, opts: SimplifyOptions = {}, params?: string): void {
  // The expected text is simplified too (without facts it only takes the canonical form).
  expectStructurallyEqual(simplifyFunc(parse(func(before, params)), opts), simplifyFunc(parse(func(expected, params))));
}

describe("simplify removes conditions implied by enclosing ifs and loops (TVM Simplify)", () => {
  test("a condition implied by the enclosing if", () => {
    expectSimplified(
      `
for i in range(16):
    if i == 3:
        if i < 9:
            A[i] = 1`,
      `
for i in range(16):
    if i == 3:
        A[i] = 1`,
    );
  });

  test("the else branch knows the negation, also of a disjunction", () => {
    expectSimplified(
      `
for i in range(16):
    if i < n or i == 2:
        A[i] = 1
    else:
        if n <= i:
            A[i] = 2
        if i == 2:
            A[i] = 3`,
      `
for i in range(16):
    if i < n or i == 2:
        A[i] = 1
    else:
        A[i] = 2
        T.evaluate(0)`,
    );
  });

  test("a symbolic comparison implied by another one with a constant gap", () => {
    expectSimplified(
      `
if n < 4 + 2 * n:
    if n < 9 + 2 * n:
        A[0] = 1`,
      `
if n < 4 + 2 * n:
    A[0] = 1`,
    );
  });

  test("a loop body knows that its symbolic extent is positive", () => {
    expectSimplified(
      `
for i in range(n):
    if 0 < n:
        A[0] = 1`,
      `
for i in range(n):
    A[0] = 1`,
    );
  });

  test("a condition that reads a buffer is not assumed after a store may change it", () => {
    const text = `
if A[0] == n:
    A[0] = A[0] + 1
    if A[0] == n:
        A[1] = 0`;
    expectSimplified(text, text);
  });

  test("if_then_else arms know their condition", () => {
    expectSimplified(
      `
for i in range(16):
    A[i] = T.if_then_else(i < 4, T.if_then_else(i < 8, 1, 2), 3)`,
      `
for i in range(16):
    A[i] = T.if_then_else(i < 4, 1, 3)`,
    );
  });

  test("a store of an element to itself is removed", () => {
    expectSimplified("A[n] = A[n]", "T.evaluate(0)");
  });

  test("apply_constraints_to_boolean_branches: each side of && knows the other", () => {
    const before = 'A[0] = T.Cast("int32", n < 3 and n < 7)';
    expectSimplified(before, before);
    expectSimplified(before, 'A[0] = T.Cast("int32", n < 3)', { applyConstraintsToBooleanBranches: true });
  });

  test("transitively_prove_inequalities: two comparisons combine", () => {
    const params = 'A: T.Buffer((16,), "int32"), n: T.int32, m: T.int32';
    const before = `
if n < m:
    if m < 5:
        if n < 4:
            A[0] = 1`;
    expectSimplified(before, before, {}, params);
    expectSimplified(
      before,
      `
if n < m:
    if m < 5:
        A[0] = 1`,
      { transitivelyProveInequalities: true },
      params,
    );
  });

  test("property: nested conditions simplified under their facts compute the same", () => {
    const cond = fc.tuple(fc.constantFrom("<", "<=", "==", "!=", ">", ">="), fc.integer({ min: 0, max: 15 }), fc.constantFrom("i", "i + j", "j * 2"));
    const text = ([op, k, lhs]: [string, number, string]) => `${lhs} ${op} ${k}`;
    fc.assert(
      fc.property(cond, cond, cond, fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 99 }), (c1, c2, c3, transitive, tvmSimplifier, seed) => {
        const body = `
for i, j in T.grid(16, 4):
    if ${text(c1)}:
        if ${text(c2)}:
            A[i] = A[i] + j
        else:
            A[i] = T.if_then_else(${text(c3)}, A[i] * 2, A[i] - 1)
    else:
        if ${text(c3)}:
            A[i] = A[i] + 7`;
        const f = parse(func(body, 'A: T.Buffer((16,), "int32")'));
        expectSameResults(simplifyFunc(f, { transitivelyProveInequalities: transitive, applyConstraintsToBooleanBranches: true, tvmSimplifier }), f, seed);
      }),
      { numRuns: 60 },
    );
  });

  test("tvmSimplifier: the variable of a loop of one iteration is its minimum, also in block regions (TVM binds it so)", () => {
    const f = parse(`
@T.prim_func
def main(C: T.Buffer((4, 64), "float32")):
    for i, j in T.grid(4, 1):
        with T.block(""):
            T.reads()
            T.writes(C[i, j * 64:j * 64 + 64])
            for k in range(64):
                C[i, j * 64 + k] = T.float32(1)
`);
    const out = script(simplifyFunc(f, { tvmSimplifier: true }));
    expect(out).toContain("T.writes(C[i, 0:64])");
    expect(out).toContain("C[i, k] = T.float32(1.0)");
    // The lowering pipeline's simplifier keeps the variable (the golden CUDA has it).
    expect(script(simplifyFunc(f))).toContain("C[i, j * 64 + k] = T.float32(1.0)");
  });

  test("property: loops of one iteration at any minimum simplify to code computing the same", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 99 }), (start, width, seed) => {
        const body = `
for i in range(${start}, ${start + 1}):
    for j in range(${width}):
        for k in range(1):
            A[i * ${width} + j + k] = A[i * ${width} + j + k] + i * 3 + k`;
        const f = parse(func(body, 'A: T.Buffer((16,), "int32")'));
        expectSameResults(simplifyFunc(f, { tvmSimplifier: true }), f, seed);
      }),
      { numRuns: 30 },
    );
  });

  test("tvmSimplifier: TVM's own rules and forms (a disjunction of a comparison and its negation, a float zero added)", () => {
    const f = parse(
      func(
        `
for i in range(8):
    if i < 5 or 5 <= i:
        A[i] = A[i] + i * -2
B[0] = B[0] + (T.float32(2.5) - T.float32(2.5))`,
        'A: T.Buffer((8,), "int32"), B: T.Buffer((1,), "float32")',
      ),
    );
    const tvm = script(simplifyFunc(f, { tvmSimplifier: true }));
    expect(tvm).not.toContain("if ");
    expect(tvm).not.toContain("B[0] =");
    expect(script(simplifyFunc(f))).toContain("if i < 5 or 5 <= i:");
    expectSameResults(simplifyFunc(f, { tvmSimplifier: true }), f);
  });
});

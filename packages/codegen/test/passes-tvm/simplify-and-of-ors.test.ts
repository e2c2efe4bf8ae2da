import fc from "fast-check";
import { describe, test } from "vitest";
import { simplifyFunc } from "../../src/lower/passes/index.js";
import { expectSameResults, expectStructurallyEqual, parse } from "./helpers.js";

const PARAMS = 'A: T.Buffer((1,), "int32"), i: T.int32, j: T.int32, k: T.int32';
const store = (cond: string) => `@T.prim_func\ndef main(${PARAMS}):\n    A[0] = T.Cast("int32", ${cond})\n`;

function expectAndOfOrs(before: string, expected: string): void {
  expectStructurallyEqual(simplifyFunc(parse(store(before)), { convertBooleanToAndOfOrs: true }), parse(store(expected)));
}

describe("simplify with convertBooleanToAndOfOrs (TVM convert_boolean_to_and_of_ors)", () => {
  test("an OR over an AND distributes into clauses", () => {
    expectAndOfOrs("i == 1 or (j == 2 and k == 3)", "(i == 1 or j == 2) and (i == 1 or k == 3)");
  });

  test("a clause that repeats another in another order is dropped", () => {
    expectAndOfOrs("(i == 1 or j == 2) and (j == 2 or (i == 1 and k == 3))", "(i == 1 or j == 2) and (j == 2 or k == 3)");
  });

  test("clauses differing in one literal merge when one literal implies the other", () => {
    expectAndOfOrs("(i == 0 or k == 4) and (i == 0 or k != 9)", "i == 0 or k == 4");
  });

  test("within a clause the weaker of two literals stays", () => {
    expectAndOfOrs("i == 4 or j == 1 or i != 6", "j == 1 or i != 6");
  });

  test("property: the rewritten condition has the same value everywhere", () => {
    const literal = fc
      .tuple(fc.constantFrom("i", "j", "k"), fc.constantFrom("==", "!=", "<", ">="), fc.integer({ min: 0, max: 3 }))
      .map(([v, op, c]) => `${v} ${op} ${c}`);
    const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
      e: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        literal,
        fc.tuple(tie("e"), fc.constantFrom("and", "or"), tie("e")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      ),
    })).e;
    fc.assert(
      fc.property(expr, (cond) => {
        const loops = `@T.prim_func\ndef main(A: T.Buffer((64,), "int32")):\n    for i, j, k in T.grid(4, 4, 4):\n        A[i * 16 + j * 4 + k] = T.Cast("int32", ${cond})\n`;
        const f = parse(loops);
        expectSameResults(simplifyFunc(f, { convertBooleanToAndOfOrs: true }), f);
      }),
      { numRuns: 60 },
    );
  });
});

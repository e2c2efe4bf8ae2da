import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { removeNoOp } from "../../src/lower/passes/index.js";
import { expectSameResults, expectStructurallyEqual, funcText, parse } from "./helpers.js";

const func = (body: string, params = 'A: T.Buffer((16,), "float32"), n: T.int32') => funcText(body, params);

describe("removeNoOp (TVM RemoveNoOp)", () => {
  const cases: Record<string, [string, string]> = {
    "a loop whose body does nothing": [
      `
for i in range(4):
    T.evaluate(0)
A[0] = T.float32(1)`,
      "A[0] = T.float32(1)",
    ],
    "a loop of extent zero": [
      `
for i in range(0):
    A[i] = T.float32(1)
A[1] = T.float32(2)`,
      "A[1] = T.float32(2)",
    ],
    "a store of an element to itself": [
      `
for i in range(16):
    A[i] = A[i]
A[2] = T.float32(3)`,
      "A[2] = T.float32(3)",
    ],
    "an if with nothing in either branch": [
      `
if n < 4:
    T.evaluate(0)
else:
    T.evaluate(1)
A[3] = T.float32(4)`,
      "A[3] = T.float32(4)",
    ],
    "an empty then-branch turns the condition round": [
      `
if n < 4:
    T.evaluate(0)
else:
    A[0] = T.float32(5)`,
      `
if not n < 4:
    A[0] = T.float32(5)`,
    ],
    "an empty else-branch is dropped": [
      `
if n < 4:
    A[0] = T.float32(5)
else:
    A[1] = A[1]`,
      `
if n < 4:
    A[0] = T.float32(5)`,
    ],
    "a store to itself through a binding of the same index": [
      `
for i in range(4):
    for j in range(4):
        k: T.int32 = i * 4 + j
        A[i * 4 + j] = A[k]`,
      `
for i in range(4):
    for j in range(4):
        k: T.int32 = i * 4 + j
        T.evaluate(0)`,
    ],
    "a store to itself given the enclosing condition": [
      `
for i in range(16):
    if i != 0:
        A[i] = A[i - 1]
    else:
        A[i] = A[0]`,
      `
for i in range(16):
    if i != 0:
        A[i] = A[i - 1]`,
    ],
    "a binding stays, as TVM keeps its flat Bind": [
      `
x: T.int32 = n + 1
for i in range(0):
    A[i] = T.float32(1)`,
      `
x: T.int32 = n + 1
T.evaluate(0)`,
    ],
  };
  for (const [what, [before, expected]] of Object.entries(cases)) {
    test(what, () => {
      expectStructurallyEqual(removeNoOp(parse(func(before))), parse(func(expected)));
    });
  }

  test("a call with side effects is kept", () => {
    const f = parse(func(`T.evaluate(T.tvm_storage_sync("shared"))`));
    expect(removeNoOp(f)).toBe(f);
  });

  test("property: results are unchanged", () => {
    const statement = fc.constantFrom(
      "for i in range(K):\n    A[i] = A[i] + T.float32(1)",
      "for i in range(0):\n    A[i] = T.float32(9)",
      "A[K] = A[K]",
      "if n < K:\n    T.evaluate(0)\nelse:\n    A[K] = A[K] * T.float32(2)",
      "if K < n:\n    A[K] = T.float32(7)\nelse:\n    T.evaluate(0)",
      "for j in range(K):\n    T.evaluate(0)",
      "for j in range(16):\n    if j == K:\n        A[j] = A[K]\n    else:\n        A[j] = A[j] + T.float32(1)",
      "for j in range(16):\n    if j != K:\n        A[j] = A[K]",
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(statement, fc.integer({ min: 0, max: 15 })), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 99 }),
        (stmts, seed) => {
          const body = [`n: T.int32 = ${seed % 16}`, ...stmts.map(([s, k]) => s.replaceAll("K", String(k)))].join("\n");
          const f = parse(func(body, 'A: T.Buffer((16,), "float32")'));
          expectSameResults(removeNoOp(f), f, seed);
        },
      ),
      { numRuns: 40 },
    );
  });
});

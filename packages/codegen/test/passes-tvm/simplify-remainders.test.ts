import { boolImm, eq, floormod, intImm, lt, ne as neq, not, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { simplifyFunc } from "../../src/lower/passes/index.js";
import { decideByRemainder } from "../../src/lower/util/remainder-facts.js";
import { expectSameResults, expectStructurallyEqual, funcText, parse } from "./helpers.js";

const floorMod = (a: number, b: number): number => a - Math.floor(a / b) * b + 0;

describe("simplify: a known remainder decides other remainders (TVM's ModularSet constraints)", () => {
  test("x % -4 == 0 known: x % 2 == 0 holds, x % 4 == 1 does not, x % 8 stays open", () => {
    const before = parse(
      funcText(
        `
if T.floormod(x, -4) == 0:
    A[0] = T.floormod(x, 2) == 0
    A[1] = T.floormod(x, 4) == 1
    A[2] = T.floormod(x, 8) == 0`,
        'A: T.Buffer((3,), "bool"), x: T.int32',
      ),
    );
    const expected = parse(
      funcText(
        `
if T.floormod(x, -4) == 0:
    A[0] = T.bool(True)
    A[1] = T.bool(False)
    A[2] = T.floormod(x, 8) == 0`,
        'A: T.Buffer((3,), "bool"), x: T.int32',
      ),
    );
    for (const tvmSimplifier of [false, true]) expectStructurallyEqual(simplifyFunc(before, { tvmSimplifier }), simplifyFunc(expected, { tvmSimplifier }));
  });

  test("a let bound to int(ceil(log2(…))) is known to the analyzer: the condition on it goes", () => {
    const params = 'A: T.Buffer((16,), "float32")';
    const before = parse(
      funcText(
        `
for i in range(16):
    x: T.int32 = T.Cast("int32", T.ceil(T.log2(T.Cast("float64", i + 1025))))
    if x == 11:
        A[i] = T.float32(1)`,
        params,
      ),
    );
    const out = simplifyFunc(before, { tvmSimplifier: true });
    const expected = parse(
      funcText(
        `
for i in range(16):
    x: T.int32 = T.Cast("int32", T.ceil(T.log2(T.Cast("float64", i + 1025))))
    A[i] = T.float32(1)`,
        params,
      ),
    );
    expectStructurallyEqual(out, expected);
    expectSameResults(out, before);
  });

  test("property: conditions on a let of int(ceil(log2(…))) simplified under its bound compute the same", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 14 }),
        fc.constantFrom("==", "<", ">="),
        fc.boolean(),
        (lo, k, op, tvmSimplifier) => {
          const body = `
for i in range(16):
    x: T.int32 = T.Cast("int32", T.ceil(T.log2(T.Cast("float64", i + ${lo}))))
    if x ${op} ${k}:
        A[i] = T.float32(1)
    else:
        A[i] = T.float32(2)`;
          const f = parse(funcText(body, 'A: T.Buffer((16,), "float32")'));
          expectSameResults(simplifyFunc(f, { tvmSimplifier }), f);
        },
      ),
      { numRuns: 60 },
    );
  });

  test("property (10^4 points): whatever it decides agrees with floormod at every x the fact admits", () => {
    const x = variable("x", "int64");
    const divisor = fc.integer({ min: -12, max: 12 }).filter((d) => d !== 0);
    fc.assert(
      fc.property(
        divisor,
        fc.integer({ min: -13, max: 13 }),
        divisor,
        fc.integer({ min: -13, max: 13 }),
        fc.boolean(),
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        (c1, b1, c2, b2, ne, v) => {
          const fact = eq(floormod(x, intImm(c1, "int64")), intImm(b1, "int64"));
          const query = (ne ? neq : eq)(floormod(x, intImm(c2, "int64")), intImm(b2, "int64"));
          const decided = decideByRemainder(query, [fact]);
          if (decided === undefined) return;
          // A point the fact admits: v moved to the fact's residue class.
          const point = v - floorMod(v, c1) + b1;
          if (floorMod(point, c1) !== b1) return;
          expect(decided).toBe((floorMod(point, c2) === b2) !== ne);
        },
      ),
      { numRuns: 10_000 },
    );
  });

  test("what is not a remainder test is left undecided", () => {
    const x = variable("x", "int32");
    expect(decideByRemainder(not(boolImm(true)), [boolImm(true)])).toBeUndefined();
    expect(decideByRemainder(lt(floormod(x, intImm(2)), intImm(1)), [eq(floormod(x, intImm(4)), intImm(0))])).toBeUndefined();
  });

  test("property: nested remainder tests simplified under their facts compute the same", () => {
    const test = fc.tuple(
      fc.integer({ min: -8, max: 8 }).filter((d) => d !== 0),
      fc.integer({ min: -8, max: 8 }),
      fc.constantFrom("==", "!="),
    );
    const text = ([d, r, op]: [number, number, string]) => `T.floormod(i - 5, ${d}) ${op} ${r}`;
    fc.assert(
      fc.property(test, test, fc.boolean(), fc.integer({ min: 0, max: 99 }), (outer, inner, tvmSimplifier, seed) => {
        const body = `
for i in range(24):
    if ${text(outer)}:
        A[i] = T.Select(${text(inner)}, 1, 2)
    else:
        A[i] = T.Select(${text(inner)}, 3, 4)`;
        const f = parse(funcText(body, 'A: T.Buffer((24,), "int32")'));
        expectSameResults(simplifyFunc(f, { tvmSimplifier }), f, seed);
      }),
      { numRuns: 80 },
    );
  });
});

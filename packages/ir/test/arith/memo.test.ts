/**
 * The simplifier's shortcuts give the answers of the plain computation: memoised simplification
 * and bounds (an Analyzer reused across calls, facts changing in between), linear forms noted for
 * rebuilt expressions, and structural equality decided without key strings.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PrimExpr, type Var, add, binary, cast, floordiv, floormod, intImm, max, min, mul, sub, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { printExpr } from "../../src/printer/index.js";
import {
  Analyzer,
  type LinearForm,
  addForms,
  constIntBoundOf,
  exprStructureKey,
  linearFormOf,
  linearFormToExpr,
  sameExprStructure,
  scaleForm,
} from "../../src/arith/index.js";
import { formOfRebuilt, subtractForms } from "../../src/arith/linearForm.js";
import { show } from "./exprTestUtils.js";

const x = variable("x");
const y = variable("y");
const z = variable("z");
const wide = variable("wide", "int64");

/** Expressions over a few variables; subtrees are reused, as unrolled code reuses them. */
const leaf = fc.oneof(
  fc.constantFrom<PrimExpr>(x, y, z),
  fc.integer({ min: -9, max: 9 }).map((c) => intImm(c)),
);
const { intExpr } = fc.letrec<{ intExpr: PrimExpr }>((tie) => ({
  intExpr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => add(a, b)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => sub(a, b)),
    fc.tuple(tie("intExpr"), fc.integer({ min: -4, max: 4 })).map(([a, c]) => mul(a, c)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => mul(a, b)),
    fc
      .tuple(fc.constantFrom("floordiv", "floormod", "div", "mod") as fc.Arbitrary<"floordiv">, tie("intExpr"), fc.constantFrom(2, 3, 4, 8, -4))
      .map(([op, a, c]) => binary(op, a, c)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => min(a, b)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => max(a, b)),
  ),
}));

function bound(an: Analyzer, v: Var, lo: number, hi: number): void {
  an.bind(v, range(lo, hi - lo + 1), true);
}

/** A fresh analyzer with the same facts: no memo carried over. */
function freshSimplify(e: PrimExpr, facts: readonly [Var, number, number][]): PrimExpr {
  const an = new Analyzer();
  for (const [v, lo, hi] of facts) bound(an, v, lo, hi);
  return an.simplify(e);
}

function formText(f: LinearForm): string {
  return `${f.dtype}: ${f.terms.map((t) => `${t.coef}*${t.key}`).join(" ")} + ${f.constant}`;
}

describe("memoised simplification", () => {
  it("one analyzer across calls, facts changing in between, simplifies as fresh analyzers do", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(intExpr, fc.boolean()), { minLength: 1, maxLength: 8 }), (steps) => {
        const an = new Analyzer();
        const facts: [Var, number, number][] = [
          [x, 0, 15],
          [y, -4, 4],
        ];
        for (const [v, lo, hi] of facts) bound(an, v, lo, hi);
        const seen: PrimExpr[] = [];
        steps.forEach(([e, narrow], i) => {
          if (narrow) {
            // A new fact: what was memoised under the old facts must not be reused.
            const fact: [Var, number, number] = [z, 0, i + 1];
            facts.push(fact);
            bound(an, ...fact);
          }
          seen.push(e);
          for (const s of seen) {
            const memoised = an.simplify(s);
            expect(show(memoised)).toBe(show(freshSimplify(s, facts)));
            // Bounds are memoised too: the cached answer is the uncached one.
            expect(an.constIntBound(s)).toEqual(constIntBoundOf(s, an));
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the memo when a variable nobody asked about gets its first bound, and only then", () => {
    const an = new Analyzer();
    bound(an, x, 0, 15);
    const e = floordiv(add(x, 3), 16);
    expect(show(an.simplify(e))).toBe("(x + 3) // 16");
    const before = an.generation;
    bound(an, z, 0, 3); // z: not in anything simplified so far
    expect(an.generation).toBe(before);
    expect(show(an.simplify(add(e, z)))).toBe(
      show(
        freshSimplify(add(e, z), [
          [x, 0, 15],
          [z, 0, 3],
        ]),
      ),
    );
    an.simplify(floordiv(add(y, 3), 16)); // y asked about while unbound
    bound(an, y, 0, 12);
    expect(an.generation).not.toBe(before);
    expect(show(an.simplify(floordiv(add(y, 3), 16)))).toBe("0");
  });

  it("shares one simplified subtree between the expressions that use it", () => {
    const an = new Analyzer();
    bound(an, x, 0, 255);
    const shared = floordiv(x, 16);
    const a = an.simplify(add(mul(shared, 4), 1));
    const b = an.simplify(add(mul(shared, 4), 2));
    expect(show(a)).toBe("x // 16 * 4 + 1");
    expect(show(b)).toBe("x // 16 * 4 + 2");
    // Rebinding x changes what the same nodes simplify to.
    bound(an, x, 0, 15);
    expect(show(an.simplify(add(mul(shared, 4), 1)))).toBe("1");
  });
});

describe("linear forms of rebuilt expressions", () => {
  it("formOfRebuilt is the form linearFormOf finds in linearFormToExpr's expression", () => {
    fc.assert(
      fc.property(intExpr, intExpr, fc.integer({ min: -3, max: 3 }), (a, b, k) => {
        const f = addForms(linearFormOf(a), scaleForm(linearFormOf(b), k));
        const rebuilt = linearFormToExpr(f);
        const expected = rebuilt.kind === "IntImm" ? undefined : linearFormOf(rebuilt);
        const noted = formOfRebuilt(f);
        if (noted === undefined) return;
        expect(expected).toBeDefined();
        expect(formText(noted)).toBe(formText(expected!));
        noted.terms.forEach((t, i) => expect(t.atom).toBe(expected!.terms[i]!.atom));
      }),
      { numRuns: 500 },
    );
  });

  it("is not claimed where the rebuilt expression casts an atom of another dtype", () => {
    const f = addForms(linearFormOf(wide), { dtype: "int32", terms: [], constant: 0 });
    expect(formOfRebuilt({ ...f, dtype: "int32" })).toBeUndefined();
    expect(formOfRebuilt({ dtype: "int32", terms: [], constant: 3 })).toBeUndefined();
  });

  it("a form cache gives the forms of the plain decomposition", () => {
    fc.assert(
      fc.property(fc.array(intExpr, { minLength: 1, maxLength: 6 }), (es) => {
        const cache = new Map<PrimExpr, LinearForm>();
        for (const e of [...es, ...es]) expect(formText(linearFormOf(e, cache))).toBe(formText(linearFormOf(e)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("sums built once at the top of their chain", () => {
  // Expected forms recorded with c3089fa, which built an expression for every + - * node.
  const wide64 = variable("w", "int64");
  const word = variable("u", "uint32");
  const cases: readonly [string, PrimExpr, string][] = [
    ["a product of non-constants inside the chain", add(add(mul(x, y), 3), sub(z, mul(x, y))), "z + 3"],
    ["a product whose operands are sums", add(add(mul(add(x, 1), add(y, 2)), x), 4), "(x + 1) * (y + 2) + x + 4"],
    [
      "a coefficient past 2^53 (the product stays as written)",
      add(mul(mul(wide64, intImm(2 ** 40, "int64")), intImm(2 ** 20, "int64")), wide64),
      "w * T.int64(1099511627776) * T.int64(1048576) + w",
    ],
    ["unsigned wrap-around", add(mul(add(word, intImm(4294967295, "uint32")), intImm(2, "uint32")), word), "u * T.uint32(3) + T.uint32(4294967294)"],
    ["a quotient and remainder recombined", add(add(floormod(x, 4), mul(floordiv(x, 4), 4)), y), "x + y"],
    ["every term cancelled", sub(add(add(x, y), z), add(y, add(x, z))), "0"],
    ["an atom of another dtype (a cast)", add(cast("int32", add(wide64, intImm(1, "int64"))), add(x, 1)), 'T.Cast("int32", w + T.int64(1)) + x + 1'],
    ["zero products", add(add(x, mul(y, 0)), mul(sub(z, z), 7)), "x"],
  ];
  for (const [what, e, expected] of cases) {
    it(`${what}: ${expected}`, () => {
      const an = new Analyzer();
      bound(an, x, 0, 15);
      expect(printExpr(an.simplify(e))).toBe(expected);
    });
  }

  it("keeps the input node of a sum that simplification leaves as it is", () => {
    const e = add(mul(x, y), z);
    expect(new Analyzer().simplify(e)).toBe(e);
  });
});

describe("differences of linear forms", () => {
  it("subtractForms(a, b) is addForms(a, scaleForm(b, -1))", () => {
    fc.assert(
      fc.property(intExpr, intExpr, (a, b) => {
        const fa = linearFormOf(a);
        const fb = linearFormOf(b);
        const viaScale = addForms(fa, scaleForm(fb, -1));
        const direct = subtractForms(fa, fb);
        expect(formText(direct)).toBe(formText(viaScale));
        expect(direct.terms.map((t) => t.atom)).toEqual(viaScale.terms.map((t) => t.atom));
        expect(Object.is(direct.constant, viaScale.constant)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("structural equality", () => {
  it("sameExprStructure holds exactly when the structure keys are equal", () => {
    fc.assert(
      fc.property(intExpr, intExpr, (a, b) => {
        // Rebuilding with fresh nodes gives a structurally equal, not identical, expression.
        const copy = floormod(add(a, 0), 7);
        const again = floormod(add(a, 0), 7);
        expect(sameExprStructure(copy, again)).toBe(true);
        expect(sameExprStructure(a, b)).toBe(exprStructureKey(a) === exprStructureKey(b));
        expect(sameExprStructure(copy, b)).toBe(exprStructureKey(copy) === exprStructureKey(b));
      }),
      { numRuns: 500 },
    );
  });

  it("tells integer and float immediates, variables of one name and casts apart as the keys do", () => {
    const a = variable("a");
    const a2 = variable("a");
    expect(sameExprStructure(add(a, 1), add(a2, 1))).toBe(false);
    expect(sameExprStructure(intImm(0), intImm(-0))).toBe(true);
    expect(sameExprStructure(intImm(1, "int32"), intImm(1, "int64"))).toBe(false);
    expect(sameExprStructure(binary("floordiv", a, 2), binary("floormod", a, 2))).toBe(false);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BinaryOp, type PrimExpr, type Var, binary, intImm, letExpr, variable } from "../../src/expr.js";
import { conv2d, gemmReluAdd } from "../../src/ops/index.js";
import { structuralDiff, structuralEqual, structuralHash, structuralHashes } from "../../src/structural/index.js";
import { matmulRelu } from "./fixtures.js";

/** A name-free description of an expression; building it twice with different names gives renamed copies. */
type Spec =
  | { readonly t: "var"; readonly index: number }
  | { readonly t: "const"; readonly value: number }
  | { readonly t: "bin"; readonly op: BinaryOp; readonly a: Spec; readonly b: Spec }
  | { readonly t: "let"; readonly value: Spec; readonly body: Spec };

const OPS: BinaryOp[] = ["add", "sub", "mul", "floordiv", "floormod", "min", "max"];

const specArb: fc.Arbitrary<Spec> = fc.letrec<{ spec: Spec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ t: fc.constant("var" as const), index: fc.nat(3) }),
    fc.record({ t: fc.constant("const" as const), value: fc.integer({ min: -20, max: 20 }) }),
    fc.record({ t: fc.constant("bin" as const), op: fc.constantFrom(...OPS), a: tie("spec"), b: tie("spec") }),
    fc.record({ t: fc.constant("let" as const), value: tie("spec"), body: tie("spec") }),
  ),
})).spec;

function build(spec: Spec, prefix: string, vars: Var[] = [0, 1, 2, 3].map((i) => variable(`${prefix}${i}`))): PrimExpr {
  switch (spec.t) {
    case "var":
      return vars[spec.index]!;
    case "const":
      return intImm(spec.value);
    case "bin":
      return binary(spec.op, build(spec.a, prefix, vars), build(spec.b, prefix, vars));
    case "let": {
      // The let var shadows variable 0 inside the body, exercising definition points.
      const bound = variable(`${prefix}let`);
      return letExpr(bound, build(spec.value, prefix, vars), build(spec.body, prefix, [bound, ...vars.slice(1)]));
    }
  }
}

function countConstants(spec: Spec): number {
  switch (spec.t) {
    case "var":
      return 0;
    case "const":
      return 1;
    case "bin":
      return countConstants(spec.a) + countConstants(spec.b);
    case "let":
      return countConstants(spec.value) + countConstants(spec.body);
  }
}

function hasNamedNodes(spec: Spec): boolean {
  if (spec.t === "var" || spec.t === "let") return true;
  return spec.t === "bin" && (hasNamedNodes(spec.a) || hasNamedNodes(spec.b));
}

/** Changes the n-th constant leaf (in pre-order) by one. */
function bumpConstant(spec: Spec, n: number): Spec {
  let seen = 0;
  const go = (s: Spec): Spec => {
    switch (s.t) {
      case "var":
        return s;
      case "const":
        return seen++ === n ? { ...s, value: s.value + 1 } : s;
      case "bin":
        return { ...s, a: go(s.a), b: go(s.b) };
      case "let":
        return { ...s, value: go(s.value), body: go(s.body) };
    }
  };
  return go(spec);
}

describe("structural equality on random expressions", () => {
  it("trees built twice with different names are equal and hash equal", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const a = build(spec, "a");
        const b = build(spec, "b");
        expect(structuralEqual(a, b)).toBe(true);
        expect(structuralHash(a)).toBe(structuralHash(b));
        expect(structuralEqual(a, b, { compareNames: true })).toBe(!hasNamedNodes(spec));
      }),
      { numRuns: 200 },
    );
  });

  it("changing one constant leaf makes them unequal and the diff names both constants", () => {
    const withConstant = specArb.filter((s) => countConstants(s) > 0);
    fc.assert(
      fc.property(withConstant, fc.nat(), (spec, pick) => {
        const n = pick % countConstants(spec);
        const a = build(spec, "a");
        const b = build(bumpConstant(spec, n), "b");
        expect(structuralEqual(a, b)).toBe(false);
        expect(structuralHash(a)).not.toBe(structuralHash(b));
        expect(structuralDiff(a, b)?.description).toMatch(/^lhs: -?\d+ vs rhs: -?\d+$/);
      }),
      { numRuns: 200 },
    );
  });

  it("replacing a variable leaf by another used variable makes them unequal", () => {
    const [x, y] = [variable("x"), variable("y")];
    fc.assert(
      fc.property(specArb, (spec) => {
        const base = binary("add", binary("mul", x, y), build(spec, "p"));
        const swapped = binary("add", binary("mul", x, x), build(spec, "q"));
        expect(structuralEqual(base, swapped)).toBe(false);
      }),
      { numRuns: 50 },
    );
  });
});

describe("both structural hashes from one walk", () => {
  const both = (node: Parameters<typeof structuralHash>[0]) => ({
    withoutNames: structuralHash(node),
    withNames: structuralHash(node, { compareNames: true }),
  });

  it("are the hashes without and with names, on random expressions and their renamed copies", () => {
    fc.assert(
      fc.property(specArb, fc.constantFrom("a", "b"), (spec, prefix) => {
        const e = build(spec, prefix);
        expect(structuralHashes(e)).toEqual(both(e));
      }),
      { numRuns: 200 },
    );
  });

  it("are the hashes without and with names, on functions with blocks, buffers and block names", () => {
    const funcs = [
      matmulRelu(),
      matmulRelu({ blockName: "renamed" }),
      gemmReluAdd(16).func,
      conv2d({ batch: 1, inChannels: 2, outChannels: 4, height: 6, width: 6, kernel: 3, padding: 1 }).func,
    ];
    for (const f of funcs) expect(structuralHashes(f)).toEqual(both(f));
    // A renamed block changes only the hash with names.
    const [a, b] = [structuralHashes(funcs[0]!), structuralHashes(funcs[1]!)];
    expect(a.withoutNames).toBe(b.withoutNames);
    expect(a.withNames).not.toBe(b.withNames);
  });
});

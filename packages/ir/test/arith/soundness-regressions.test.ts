/**
 * Counterexamples the soundness properties found at 10⁴ runs, kept as plain cases (the prover's is
 * replayed by its seed in dtype-soundness.test.ts).
 */
import { describe, expect, it } from "vitest";
import { Analyzer, binary, intImm, select, variable } from "../../src/index.js";
import { evalExact } from "./exactEval.js";

describe("soundness regressions", () => {
  it("keeps a uint32 product of constants past 2^53 whole: 4294967295² mod 2 is 1, not the 0 a double's rounding gives", () => {
    const max = intImm(4294967295, "uint32");
    const e = binary("mod", binary("mul", max, max), intImm(2, "uint32"));
    const s = new Analyzer().simplify(e);
    // Whatever form it takes, it must still evaluate (with uint32 wrap-around) to 1.
    expect(evalExact(e, new Map(), true)).toBe(1n);
    expect(evalExact(s, new Map(), true)).toBe(1n);
  });

  it("still rejects a literal division by zero, as TVM does", () => {
    const p = variable("p", "int32");
    const e = select(binary("eq", p, intImm(0, "int32")), binary("floordiv", p, intImm(0, "int32")), intImm(0, "int32"));
    expect(() => new Analyzer().canonicalSimplify(e)).toThrow(/by a constant zero/);
  });
});

/** Folding casts of constants, float16 included (TVM's TestCast folds every such cast). */
import { describe, expect, it } from "vitest";
import { Analyzer, foldCastConstant } from "../../src/arith/index.js";
import { boolImm, cast, floatImm, intImm } from "../../src/expr.js";
import { roundToFloat16 } from "../../src/exec/half-precision.js";

describe("casts of constants to float16", () => {
  it("fold to the nearest half, ties to even", () => {
    expect(foldCastConstant("float16", intImm(3))).toEqual(floatImm(3, "float16"));
    expect(foldCastConstant("float16", boolImm(true))).toEqual(floatImm(1, "float16"));
    expect(foldCastConstant("float16", floatImm(0.1))).toEqual(floatImm(roundToFloat16(0.1), "float16"));
    // 2049 lies halfway between the halves 2048 and 2050: even significand wins.
    expect(foldCastConstant("float16", intImm(2049))).toEqual(floatImm(2048, "float16"));
  });

  it("leave a finite value past the half range alone (it would be an infinity)", () => {
    expect(foldCastConstant("float16", intImm(70000))).toBeUndefined();
    expect(new Analyzer().rewriteSimplify(cast("float16", intImm(70000)))).toEqual(cast("float16", intImm(70000)));
  });
});

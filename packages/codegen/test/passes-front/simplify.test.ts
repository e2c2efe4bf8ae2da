import { bufferStore, cast, declBuffer, floordiv, forLoop, primFunc, seq, variable } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { simplifyFunc } from "../../src/lower/passes/index.js";
import { corpusEntry, runFront, script } from "./helpers.js";

describe("simplify", () => {
  test("folds the minimum of removed unit loops and uses loop ranges", () => {
    const before = runFront(corpusEntry("gemm_relu_add_manual").build().func);
    expect(script(before)).toContain("if k_0 * 16 + k_1_0 + 0 == 0:");
    const after = simplifyFunc(before);
    const text = script(after);
    expect(text).not.toContain("+ 0");
    expect(text).toContain("if k_0 * 16 + k_1_0 == 0:");
    expect(simplifyFunc(after)).toBe(after);
  });

  test("a statement object met twice (as unrolled code repeats them) is simplified under each place's ranges", () => {
    const i = variable("i");
    const A = declBuffer("A", [8], "int32");
    // One store object, under a loop of 4 (where i // 4 is 0) and again under a loop of 8.
    const store = bufferStore(A, cast("int32", floordiv(i, 4)), [i]);
    const func = primFunc([A.data], new Map([[A.data, A]]), seq([forLoop(i, 4, store), forLoop(i, 8, store)]));
    const text = script(simplifyFunc(func));
    expect(text).toContain("A[i] = 0");
    expect(text).toContain("A[i] = i // 4");
  });
});

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
});

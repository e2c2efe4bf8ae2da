import { describe, expect, it } from "vitest";
import { toleranceForDType } from "../../src/exec/index.js";

describe("toleranceForDType", () => {
  const base = { rtol: 1e-5, atol: 1e-6 };

  it("keeps the comparison's own tolerance for float32, float64 and integers", () => {
    for (const dt of ["float32", "float64", "int32", "bool"]) expect(toleranceForDType(dt, base)).toBe(base);
  });

  it("allows two ulps for float16 (2^-9) and bfloat16 (2^-6), never less than asked", () => {
    expect(toleranceForDType("float16", base)).toEqual({ rtol: 2 ** -9, atol: 2 ** -9 });
    expect(toleranceForDType("bfloat16", base)).toEqual({ rtol: 2 ** -6, atol: 2 ** -6 });
    expect(toleranceForDType("float16", { rtol: 0.1, atol: 0 })).toEqual({ rtol: 0.1, atol: 2 ** -9 });
  });
});

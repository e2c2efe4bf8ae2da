/** The host float64 reference of D = ReLU(A·B) + C against a hand-worked case and the IR executor. */
import { compilePrimFunc, gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { gemmReluAddReferenceOnHost } from "../src/index.js";

describe("gemmReluAddReferenceOnHost", () => {
  it("computes ReLU(A·B) + C for a worked 2×2 case (one negative product clamped)", () => {
    const A = Float32Array.from([1, 2, 3, 4]);
    const B = Float32Array.from([1, -1, 0, -1]);
    const C = Float32Array.from([0.5, 0.5, -0.5, -0.5]);
    // A·B = [[1, -3], [3, -7]] → ReLU → [[1, 0], [3, 0]] → + C
    expect([...gemmReluAddReferenceOnHost(A, B, C, 2)]).toEqual([1.5, 0.5, 2.5, -0.5]);
  });

  it("agrees with the sequential executor of the workload's IR", () => {
    const n = 16;
    const rand = (k: number): Float32Array => Float32Array.from({ length: n * n }, (_, i) => Math.sin(i * 12.9898 + k * 78.233) * 0.9);
    const [A, B, C] = [rand(1), rand(2), rand(3)];
    const D = new Float32Array(n * n);
    compilePrimFunc(gemmReluAdd(n).func).run([A, B, C, D]);
    const ref = gemmReluAddReferenceOnHost(A, B, C, n);
    ref.forEach((r, i) => expect(Math.abs(D[i]! - r)).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(r)));
  });
});

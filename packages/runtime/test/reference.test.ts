/** The host float64 reference of D = ReLU(A·B) + C against a hand-worked case and the IR executor; the sampled one against the full one. */
import { compilePrimFunc, gemmReluAdd } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gemmReluAddReferenceAt, gemmReluAddReferenceOnHost } from "../src/index.js";

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

describe("gemmReluAddReferenceAt", () => {
  const n = 24;
  const rand = (k: number): Float32Array => Float32Array.from({ length: n * n }, (_, i) => Math.cos(i * 3.17 + k * 1.7) * 0.8);
  const [A, B, C] = [rand(1), rand(2), rand(3)];
  const full = gemmReluAddReferenceOnHost(A, B, C, n);

  it("equals the full reference at the requested elements, in the requested order (a tile, scattered elements, repeats)", () => {
    const tile = Array.from({ length: 16 }, (_, k) => (8 + Math.floor(k / 4)) * n + 12 + (k % 4));
    const indices = [...tile, n * n - 1, 0, 5 * n + 23, 7, 7];
    const sampled = gemmReluAddReferenceAt(A, B, C, n, indices);
    expect([...sampled]).toEqual(indices.map((i) => full[i]!));
  });

  it("equals the full reference for any set of elements (tiles of odd and even height and width, scattered ones)", () => {
    const tileArb = fc.record({ row: fc.nat(n - 1), col: fc.nat(n - 1), height: fc.integer({ min: 1, max: 7 }), width: fc.integer({ min: 1, max: 7 }) });
    const indicesArb = fc.tuple(fc.array(tileArb, { maxLength: 4 }), fc.array(fc.nat(n * n - 1), { maxLength: 9 })).map(([tiles, scattered]) => [
      ...tiles.flatMap((t) =>
        Array.from({ length: Math.min(t.height, n - t.row) * Math.min(t.width, n - t.col) }, (_, k) => {
          const w = Math.min(t.width, n - t.col);
          return (t.row + Math.floor(k / w)) * n + t.col + (k % w);
        }),
      ),
      ...scattered,
    ]);
    fc.assert(
      fc.property(indicesArb, (indices) => {
        expect([...gemmReluAddReferenceAt(A, B, C, n, indices)]).toEqual(indices.map((i) => full[i]!));
      }),
      { numRuns: 60 },
    );
  });

  it("names an index outside the output instead of reading past the arrays", () => {
    expect(() => gemmReluAddReferenceAt(A, B, C, n, [3, n * n])).toThrow(/index 576 \(position 1\) is outside the 24×24 output/);
  });
});

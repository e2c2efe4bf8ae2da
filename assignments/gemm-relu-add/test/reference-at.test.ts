/** The sampled reference of D = ReLU(A·B) + C (what the simulator's sampled check compares with) against the full host reference. */
import { gemmReluAddReferenceOnHost } from "@tessera/corpus";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gemmReluAddReferenceAt } from "../binding/reference-at.js";

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

/**
 * The PTX fragment layouts the simulator uses: every element of each operand tile is held by
 * exactly one (lane, register), and ldmatrix.x4 of a 16×16 tile gives lane l the A elements that
 * m16n8k16 expects there (the pairing the mma_ldmatrix_f16_a intrinsic relies on).
 */
import { describe, expect, it } from "vitest";
import { type FragmentLayout, M16N8K16, M16N8K8_TF32, ldmatrixSource } from "../../src/mma/ptx-layouts.js";

function coverage(layout: FragmentLayout, perLane: number, rows: number, cols: number): Set<string> {
  const seen = new Set<string>();
  for (let lane = 0; lane < 32; lane++) {
    for (let i = 0; i < perLane; i++) {
      const { row, col } = layout(lane, i);
      expect(row >= 0 && row < rows && col >= 0 && col < cols, `lane ${lane} register ${i}: (${row}, ${col})`).toBe(true);
      seen.add(`${row},${col}`);
    }
  }
  return seen;
}

describe("PTX fragment layouts", () => {
  for (const shape of [M16N8K16, M16N8K8_TF32]) {
    it(`${shape.name}: A, B and C are bijections onto their tiles`, () => {
      expect(coverage(shape.a, shape.aElements, shape.m, shape.k).size).toBe(shape.m * shape.k);
      expect(coverage(shape.b, shape.bElements, shape.k, shape.n).size).toBe(shape.k * shape.n);
      expect(coverage(shape.c, shape.cElements, shape.m, shape.n).size).toBe(shape.m * shape.n);
    });
  }

  it("ldmatrix.x4 with lane l addressing row l % 16, column 8·(l / 16) loads m16n8k16's A fragment", () => {
    for (let lane = 0; lane < 32; lane++) {
      for (let e = 0; e < 8; e++) {
        const { matrix, row, col } = ldmatrixSource(lane, e, false);
        const addressing = 8 * matrix + row;
        const tile = { row: addressing % 16, col: 8 * Math.floor(addressing / 16) + col };
        expect(tile).toEqual(M16N8K16.a(lane, e));
      }
    }
  });

  it("ldmatrix.x4.trans of a k×n tile addressed the same way loads B for the two n8 halves", () => {
    for (let lane = 0; lane < 32; lane++) {
      for (let e = 0; e < 8; e++) {
        const { matrix, row, col } = ldmatrixSource(lane, e, true);
        const addressing = 8 * matrix + row;
        const tile = { row: addressing % 16, col: 8 * Math.floor(addressing / 16) + col };
        // Registers 0-3: the first n8 half; 4-7: the second.
        const half = e >> 2;
        const b = M16N8K16.b(lane, e & 3);
        expect(tile).toEqual({ row: b.row, col: b.col + 8 * half });
      }
    }
  });
});

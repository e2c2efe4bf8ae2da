/**
 * The warp-register layout that the ldmatrix / m16n8k16 intrinsics (`MMA_INTRINSICS`) expect of
 * their warp-scope buffers, as an index map for `Schedule.transformLayout`: element (i, j) of a
 * matrix of 16×16 tiles goes to (tile row, tile column, lane, register).
 */
import { type PrimExpr, type Var, add, floordiv, floormod, mul } from "@tessera/ir";

const TILE = 16;

/** (i, j) → (i / 16, j / 16, lane, register) of the ldmatrix / m16n8k16 fragment of a 16×16 tile. */
export function mmaFragmentLayout(i: Var, j: Var): PrimExpr[] {
  const [ti, tj] = [floormod(i, TILE), floormod(j, TILE)];
  const lane = add(mul(floormod(ti, 8), 4), floordiv(floormod(tj, 8), 2));
  const register = add(add(mul(floordiv(tj, 8), 4), mul(floordiv(ti, 8), 2)), floormod(tj, 2));
  return [floordiv(i, TILE), floordiv(j, TILE), lane, register];
}

/**
 * (r, c) → (r tile, c tile, lane, register) of the m16n8k8 tf32 operand fragments: A's 16×8 tiles
 * (lane 4·(i mod 8) + k mod 4, register by row half and column half) or B's 8×16 tiles (two 8×8
 * halves, lane 4·(j mod 8) + k mod 4), as the tf32 load intrinsics (`mma_load_tf32_*`) write them.
 */
export function tf32FragmentLayout(operand: "A" | "B"): (r: Var, c: Var) => PrimExpr[] {
  const TF32_K = 8;
  if (operand === "A")
    return (i, k) => {
      const [ti, tk] = [floormod(i, TILE), floormod(k, TF32_K)];
      return [floordiv(i, TILE), floordiv(k, TF32_K), add(mul(floormod(ti, 8), 4), floormod(tk, 4)), add(floordiv(ti, 8), mul(floordiv(tk, 4), 2))];
    };
  return (k, j) => {
    const [tk, tj] = [floormod(k, TF32_K), floormod(j, TILE)];
    return [floordiv(k, TF32_K), floordiv(j, TILE), add(mul(floormod(tj, 8), 4), floormod(tk, 4)), add(floordiv(tk, 4), mul(floordiv(tj, 8), 2))];
  };
}

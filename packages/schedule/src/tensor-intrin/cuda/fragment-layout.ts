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

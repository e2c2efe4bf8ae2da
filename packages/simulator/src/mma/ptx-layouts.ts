/**
 * Fragment layouts of mma.sync and ldmatrix as the PTX ISA defines them (section "Matrix
 * fragments for mma.m16n8k16 / mma.m16n8k8", "ldmatrix"): which lane holds which element of an
 * operand, in which of its registers (counted in elements: an .f16x2 register holds two).
 * Lane l is in group g = l / 4 with index t = l % 4 within the group.
 */

/** An element of an operand tile: its row and column. */
export interface TileElement {
  readonly row: number;
  readonly col: number;
}

/** Where element `index` of `lane`'s registers sits in the operand tile. */
export type FragmentLayout = (lane: number, index: number) => TileElement;

export interface MmaShape {
  /** e.g. "m16n8k16". */
  readonly name: string;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Elements per lane of A, B and C. */
  readonly aElements: number;
  readonly bElements: number;
  readonly cElements: number;
  readonly a: FragmentLayout;
  /** B is k×n: row = k, col = n. */
  readonly b: FragmentLayout;
  readonly c: FragmentLayout;
}

const group = (lane: number) => lane >> 2;
const inGroup = (lane: number) => lane & 3;

/** The m16n8 accumulator (f32, or f16 pairs): rows g and g + 8, columns 2t and 2t + 1. */
const ACCUMULATOR_16X8: FragmentLayout = (lane, i) => ({ row: group(lane) + 8 * (i >> 1), col: 2 * inGroup(lane) + (i & 1) });

/** m16n8k16 with 16-bit operands (f16, bf16). */
export const M16N8K16: MmaShape = {
  name: "m16n8k16",
  m: 16,
  n: 8,
  k: 16,
  aElements: 8,
  bElements: 4,
  cElements: 4,
  a: (lane, i) => ({ row: group(lane) + 8 * ((i >> 1) & 1), col: 2 * inGroup(lane) + (i & 1) + 8 * (i >> 2) }),
  b: (lane, i) => ({ row: 2 * inGroup(lane) + (i & 1) + 8 * (i >> 1), col: group(lane) }),
  c: ACCUMULATOR_16X8,
};

/** m16n8k8 with tf32 operands (one 32-bit element per register). */
export const M16N8K8_TF32: MmaShape = {
  name: "m16n8k8",
  m: 16,
  n: 8,
  k: 8,
  aElements: 4,
  bElements: 2,
  cElements: 4,
  a: (lane, i) => ({ row: group(lane) + 8 * (i & 1), col: inGroup(lane) + 4 * (i >> 1) }),
  b: (lane, i) => ({ row: inGroup(lane) + 4 * i, col: group(lane) }),
  c: ACCUMULATOR_16X8,
};

/**
 * ldmatrix .b16: matrix `m` (8×8) of an .x1/.x2/.x4 load has its row r at the address lane 8m + r
 * gives. Lane l receives, in its register m (elements 2m and 2m + 1), row l / 4, columns 2(l % 4)
 * and 2(l % 4) + 1 of matrix m; with .trans, column l / 4, rows 2(l % 4) and 2(l % 4) + 1.
 */
export function ldmatrixSource(lane: number, element: number, trans: boolean): { matrix: number; row: number; col: number } {
  const matrix = element >> 1;
  const a = group(lane);
  const b = 2 * inGroup(lane) + (element & 1);
  return trans ? { matrix, row: b, col: a } : { matrix, row: a, col: b };
}

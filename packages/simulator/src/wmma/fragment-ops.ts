/**
 * The WMMA operations on a warp's fragments, modelled as the warp's collective tile (mma.h leaves
 * the per-thread layout opaque): a fragment is the rows × cols elements of its tile, row-major,
 * in an array of the fragment's element type; `index` selects one tile of an array of fragments.
 * `mma` accumulates in the accumulator's type, one product at a time in k order (the order the
 * unscheduled reduction has; the hardware's order is unspecified).
 */
import { roundToBFloat16, roundToFloat16 } from "@tessera/ir";

export type FragmentRole = "matrix_a" | "matrix_b" | "accumulator";

/** A fragment tile: which role, its rows × cols, and the (m, n, k) of the operation it belongs to. */
export interface FragmentShape {
  readonly role: FragmentRole;
  readonly m: number;
  readonly n: number;
  readonly k: number;
}

export type FragmentArray = Float32Array | Float64Array;

export function tileDims(s: FragmentShape): readonly [rows: number, cols: number] {
  if (s.role === "matrix_a") return [s.m, s.k];
  if (s.role === "matrix_b") return [s.k, s.n];
  return [s.m, s.n];
}

/** Rounding of a value to the element type of a fragment. */
export function roundingFor(dtype: string): (x: number) => number {
  if (dtype === "float16") return roundToFloat16;
  if (dtype === "bfloat16") return roundToBFloat16;
  return Math.fround;
}

export function fill(frag: FragmentArray, base: number, elements: number, value: number): void {
  frag.fill(value, base, base + elements);
}

/** Where element (r, c) of a tile is in memory of leading dimension `ldm`. */
export function memoryIndex(offset: number, ldm: number, colMajor: boolean, r: number, c: number): number {
  return colMajor ? offset + c * ldm + r : offset + r * ldm + c;
}

export interface MemoryTile {
  readonly array: ArrayLike<number> & { [i: number]: number };
  readonly offset: number;
  readonly ldm: number;
  readonly colMajor: boolean;
}

export function load(frag: FragmentArray, base: number, rows: number, cols: number, src: MemoryTile, round: (x: number) => number): void {
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) frag[base + r * cols + c] = round(src.array[memoryIndex(src.offset, src.ldm, src.colMajor, r, c)]!);
  }
}

export function store(frag: FragmentArray, base: number, rows: number, cols: number, dst: MemoryTile, round: (x: number) => number): void {
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) dst.array[memoryIndex(dst.offset, dst.ldm, dst.colMajor, r, c)] = round(frag[base + r * cols + c]!);
  }
}

export interface MmaOperand {
  readonly frag: FragmentArray;
  readonly base: number;
}

/** D = A·B + C over an m×n×k tile; products and sums rounded to the accumulator's type in k order. */
export function mma(d: MmaOperand, a: MmaOperand, b: MmaOperand, c: MmaOperand, m: number, n: number, k: number, round: (x: number) => number): void {
  const out = new Float64Array(m * n);
  for (let r = 0; r < m; r++) {
    for (let col = 0; col < n; col++) {
      let acc = c.frag[c.base + r * n + col]!;
      for (let i = 0; i < k; i++) acc = round(acc + round(a.frag[a.base + r * k + i]! * b.frag[b.base + i * n + col]!));
      out[r * n + col] = acc;
    }
  }
  // D may be C: write after every sum has read C.
  for (let e = 0; e < m * n; e++) d.frag[d.base + e] = out[e]!;
}

/**
 * The XOR swizzle of a shared tile that ldmatrix and cp.async read and write in 16-byte chunks
 * (TVM's permuted layout, CUTLASS's `Swizzle<B, M, S>`), as an index map for
 * `Schedule.swizzleLayout`. Shared memory serves 128 bytes (32 banks × 4) per wavefront, 8 chunks;
 * ldmatrix reads one chunk from each of 8 consecutive rows per 8×8 matrix. Chunk c of row r moves
 * to chunk c XOR g(r), with g taking 8 distinct values over 8 rows (counting rows that share a
 * 128-byte line once), so those 8 chunks land in 8 different bank groups:
 * - rows of P ≥ 8 chunks: g(r) = r mod 8;
 * - rows of P < 8 chunks (8 / P rows per line): g(r) = (r div (8 / P)) mod P.
 * Each chunk stays whole, so vector stores and ldmatrix rows stay 16 contiguous bytes. A P that is
 * not a power of two XORs within its largest power-of-two factor (a permutation still, with fewer
 * distinct groups).
 */
import { type PrimExpr, type Var, add, bitwiseXor, floordiv, floormod, mul } from "@tessera/ir";

const CHUNK_BYTES = 16;
const CHUNKS_PER_LINE = 8;

/** The swizzle of a 2-D shared tile whose rows are `rowElements` elements of `elementBytes` bytes. */
export function sharedSwizzle(rowElements: number, elementBytes: number): (r: Var, c: Var) => PrimExpr[] {
  const vector = CHUNK_BYTES / elementBytes;
  if (!Number.isInteger(vector) || !Number.isInteger(rowElements / vector))
    throw new RangeError(`sharedSwizzle: rows of ${rowElements} ${elementBytes}-byte elements are not whole 16-byte chunks`);
  const chunks = rowElements / vector;
  const period = Math.min(chunks & -chunks, CHUNKS_PER_LINE);
  const rowsPerLine = Math.max(1, CHUNKS_PER_LINE / period);
  return (r, c) => [r, add(mul(bitwiseXor(floordiv(c, vector), floormod(floordiv(r, rowsPerLine), period)), vector), floormod(c, vector))];
}

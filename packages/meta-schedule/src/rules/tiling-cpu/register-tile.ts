/**
 * The register tile of a CPU micro-kernel: the innermost spatial tile level fixed to `rows` × `columns`
 * output elements, the columns (the output's contiguous dimension) a whole number of SIMD vectors and the
 * rows unrolled, so the accumulators live in vector registers as in OpenBLAS's kernels. TVM samples this
 * level like the others (docs/architecture/tvm-deviations-meta-schedule.md says why we do not).
 */
import type { Block } from "@tessera/ir";
import type { MachineProfile } from "@tessera/schedule/machine";

export interface RegisterTile {
  /** Output rows per tile (unrolled). */
  readonly rows: number;
  /** Output columns per tile, a multiple of the SIMD lanes (vectorized). */
  readonly columns: number;
}

/** Vector registers of the x86-64 and AArch64 SIMD units below AVX-512 (16 ymm / 32 NEON, the smaller). */
const VECTOR_REGISTERS = 16;

/**
 * The register tiles for a machine's SIMD width: 2 vectors of columns by 8 or 4 rows (16 or 8
 * accumulators of the 16 vector registers, the rest for the A broadcast and the B loads).
 * Of float32 lanes: 8×16 and 4×16 with AVX2, 8×32 and 4×32 with AVX-512.
 */
export function registerTilesFor(machine: Pick<MachineProfile, "simdBytes">, elementBytes = 4): RegisterTile[] {
  const lanes = Math.max(1, Math.floor(machine.simdBytes / elementBytes));
  const vectorsPerRow = 2;
  return [8, 4].filter((rows) => rows * vectorsPerRow <= VECTOR_REGISTERS).map((rows) => ({ rows, columns: vectorsPerRow * lanes }));
}

/** Fixed innermost factors by iterator index (into the block's iterator variables). */
export type FixedInnermost = ReadonlyMap<number, number>;

/** Where a block takes a register tile: the fixed factors, and which iterator is the (vectorized) column. */
export interface RegisterTilePlacement {
  readonly factors: FixedInnermost;
  readonly column: number;
}

/**
 * Where a block takes the register tile: the column loop is the spatial iterator indexing the last
 * dimension of the block's output, the row loop the one indexing the dimension before it; each takes its
 * factor only where it divides the iterator's extent. Undefined when the column loop cannot take it (no
 * vector tile, so no register tile). The first of `registerTilePlacements`.
 */
export function registerTileLoops(block: Block, tile: RegisterTile): RegisterTilePlacement | undefined {
  return registerTilePlacements(block, tile)[0];
}

/**
 * Every placement of the register tile on a block: the column loop as in `registerTileLoops`, the rows
 * on each other spatial iterator that indexes a dimension of the output and whose extent the row factor
 * divides, from the dimension before the columns outwards (a conv2d's output rows, then its output
 * channels: the d2l conv2d's register tile is a block of output channels by a vector of columns, each
 * weight broadcast once per tile row). Column-only where no row iterator takes the factor; none where
 * the column loop cannot take its factor.
 */
export function registerTilePlacements(block: Block, tile: RegisterTile): RegisterTilePlacement[] {
  const write = block.writes[0];
  if (block.writes.length !== 1 || write === undefined) return [];
  const spatialIndexOf = (dim: number): number | undefined => {
    const min = write.region[dim]?.min;
    if (min?.kind !== "Var") return undefined;
    const k = block.iterVars.findIndex((iv) => iv.var === min && iv.iterType === "spatial");
    return k < 0 ? undefined : k;
  };
  const divides = (k: number, factor: number): boolean => {
    const extent = block.iterVars[k]!.dom.extent;
    return extent.kind === "IntImm" && extent.value % factor === 0 && extent.value >= factor;
  };
  const dims = write.region.length;
  const column = spatialIndexOf(dims - 1);
  if (column === undefined || !divides(column, tile.columns)) return [];
  const rows: number[] = [];
  for (let dim = dims - 2; dim >= 0; dim--) {
    const row = spatialIndexOf(dim);
    if (row !== undefined && row !== column && !rows.includes(row) && divides(row, tile.rows)) rows.push(row);
  }
  if (rows.length === 0) return [{ factors: new Map([[column, tile.columns]]), column }];
  return rows.map((row) => ({
    factors: new Map([
      [row, tile.rows],
      [column, tile.columns],
    ]),
    column,
  }));
}

/** The placements of several tiles with duplicates dropped (a row factor that divides nothing leaves the same column-only tile). */
export function distinctPlacements(placements: readonly RegisterTilePlacement[]): RegisterTilePlacement[] {
  const seen = new Set<string>();
  return placements.filter((p) => {
    const key = JSON.stringify([...p.factors].sort((a, b) => a[0] - b[0]));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

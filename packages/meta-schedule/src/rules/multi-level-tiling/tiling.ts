/**
 * The tiling machinery of TVM's MultiLevelTiling (which blocks need it is schedule-utils'
 * `needsMultiLevelTiling`): tiling a block's loop nest by a structure string such as "SSSRRSRS"
 * (`tileLoopNest`): every spatial loop is split into as many tiles as the structure
 * has S, every reduction loop into as many as it has R (with sampled perfect tile sizes, or a
 * rule's own splitter), and the tiles are reordered level by level.
 */
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import { blockRealizeOf } from "./block-query.js";

export interface TiledLoopNest {
  /** The loops of each level of the structure, outermost level first (one loop per block axis of that kind). */
  readonly tiles: LoopRV[][];
}

/** Splits one loop into `levels` loops, outermost first (fewer fill the outermost levels; the default: one sampled perfect tile). */
export type LoopSplitter = (sch: Schedule, loop: LoopRV, levels: number) => LoopRV[];

/** TVM's split of a loop: a samplePerfectTile of `levels` factors (innermost at most `maxInnermost`). */
export function perfectTileSplitter(maxInnermost: number): LoopSplitter {
  return (sch, loop, levels) => (levels === 1 ? [loop] : sch.split(loop, sch.samplePerfectTile(loop, levels, maxInnermost)));
}

export interface TileLoopNestOptions {
  readonly spatial: LoopSplitter;
  readonly reduce: LoopSplitter;
}

/**
 * Tiles the loops of `blockRV` (whose binding is trivial) by `structure`: "S" and "R" levels,
 * outermost first. Every loop is split into its kind's level count (by default with a sampled
 * perfect tile, TVM's way; `splitters` may sample some levels otherwise), and the pieces are
 * reordered level by level.
 */
export function tileLoopNest(sch: Schedule, blockRV: BlockRV, structure: string, splitters: TileLoopNestOptions): TiledLoopNest {
  if (!/^[SR]+$/.test(structure)) throw new RangeError(`tileLoopNest: the structure must be a string of S and R, got "${structure}"`);
  const sLevels = [...structure].flatMap((c, k) => (c === "S" ? [k] : []));
  const rLevels = [...structure].flatMap((c, k) => (c === "R" ? [k] : []));
  const block = sch.get(blockRV);
  const realize = blockRealizeOf(sch.func, block.name)!;
  const loops = sch.getLoops(blockRV);
  const tiles: LoopRV[][] = [...structure].map(() => []);
  for (const loop of loops) {
    const loopVar = sch.get(loop).loopVar;
    const axis = realize.iterValues.findIndex((v) => v === loopVar);
    const kind = block.iterVars[axis]?.iterType;
    const levels = kind === "spatial" ? sLevels : kind === "reduce" ? rLevels : undefined;
    if (levels === undefined || levels.length === 0) {
      throw new RangeError(`tileLoopNest: loop ${loopVar.name} of block ${block.name} has no level of its kind in "${structure}"`);
    }
    const parts = (kind === "spatial" ? splitters.spatial : splitters.reduce)(sch, loop, levels.length);
    parts.forEach((part, k) => tiles[levels[k]!]!.push(part));
  }
  sch.reorder(...tiles.flat());
  return { tiles };
}

/** Fuses the loops (one stays as it is; none is an error of the caller). */
export function fuseAll(sch: Schedule, loops: readonly LoopRV[]): LoopRV {
  if (loops.length === 0) throw new RangeError("fuseAll: no loops to fuse");
  return loops.length === 1 ? loops[0]! : sch.fuse(...loops);
}

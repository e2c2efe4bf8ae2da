/**
 * TVM's MultiLevelTiling `TileLoopNest`: every loop of a block with trivial bindings is split by a
 * sampled perfect tile into as many pieces as the structure has levels of its iterator's kind,
 * and the pieces are reordered level by level. With a register tile (`fixedInnermost`), the innermost
 * spatial level is fixed instead: the tile's factor for its loops, no piece (extent 1) for the others.
 */
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import type { FixedInnermost } from "./register-tile.js";
import type { TileStructure } from "./tile-structure.js";

/** The loops of each tile level, outermost level first. */
export type TileLevels = LoopRV[][];

export function tileLoopNest(sch: Schedule, block: BlockRV, structure: TileStructure, maxInnermostFactor: number, fixedInnermost?: FixedInnermost): TileLevels {
  const iterVars = sch.get(block).iterVars;
  const loops = sch.getLoops(block);
  const levels: TileLevels = [...structure.text].map(() => []);
  loops.forEach((loop, k) => {
    const type = iterVars[k]!.iterType;
    const indices = type === "spatial" ? structure.spatial : type === "reduce" ? structure.reduce : undefined;
    if (indices === undefined) return;
    if (type === "spatial" && fixedInnermost !== undefined && indices.length > 1) {
      const fixed = fixedInnermost.get(k);
      const upper = indices.slice(0, -1);
      let sampled = loop;
      if (fixed !== undefined) {
        const [outer, inner] = sch.split(loop, [null, fixed]);
        levels[indices.at(-1)!]!.push(inner);
        sampled = outer;
      }
      samplePieces(sch, sampled, upper.length, maxInnermostFactor).forEach((piece, j) => levels[upper[j]!]!.push(piece));
      return;
    }
    samplePieces(sch, loop, indices.length, maxInnermostFactor).forEach((piece, j) => levels[indices[j]!]!.push(piece));
  });
  sch.reorder(...levels.flat());
  return levels;
}

/** The loop split by a sampled perfect tile into `n` pieces (itself when `n` is 1). */
function samplePieces(sch: Schedule, loop: LoopRV, n: number, maxInnermostFactor: number): LoopRV[] {
  if (n === 1) return [loop];
  return sch.split(loop, sch.samplePerfectTile(loop, n, maxInnermostFactor));
}

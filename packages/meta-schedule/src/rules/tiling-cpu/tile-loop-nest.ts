/**
 * TVM's MultiLevelTiling `TileLoopNest`: every loop of a block with trivial bindings is split by a
 * sampled perfect tile into as many pieces as the structure has levels of its iterator's kind,
 * and the pieces are reordered level by level.
 */
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import type { TileStructure } from "./tile-structure.js";

/** The loops of each tile level, outermost level first. */
export type TileLevels = LoopRV[][];

export function tileLoopNest(sch: Schedule, block: BlockRV, structure: TileStructure, maxInnermostFactor: number): TileLevels {
  const iterVars = sch.get(block).iterVars;
  const loops = sch.getLoops(block);
  const levels: TileLevels = [...structure.text].map(() => []);
  loops.forEach((loop, k) => {
    const type = iterVars[k]!.iterType;
    const indices = type === "spatial" ? structure.spatial : type === "reduce" ? structure.reduce : undefined;
    if (indices === undefined) return;
    const factors = sch.samplePerfectTile(loop, indices.length, maxInnermostFactor);
    const pieces = sch.split(loop, factors);
    pieces.forEach((piece, j) => levels[indices[j]!]!.push(piece));
  });
  sch.reorder(...levels.flat());
  return levels;
}

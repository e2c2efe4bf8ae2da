/**
 * Compact dataflow of a subtree (TVM's `CheckSubtreeCompactDataflow`): every block directly under
 * the subtree root is a *local* complete block or a *local* reduction block, where "local" means
 * dominance (sole writer of its outputs) is measured among the blocks of the subtree only.
 */
import { type Buffer, type Var, forEachExpr } from "@tessera/ir";
import type { BlockEntry, NodeEntry, TreeIndex } from "../state/tree-index.js";
import { hasAffineBinding } from "./block-properties.js";

/** The first child block of `root` that is neither locally complete nor a local reduction. */
export function findNonCompactBlock(index: TreeIndex, root: NodeEntry): BlockEntry | undefined {
  const children = index.childBlocks(root);
  const writers = new Map<Buffer, BlockEntry[]>();
  for (const blk of children) {
    for (const w of blk.node.writes) writers.set(w.buffer, [...(writers.get(w.buffer) ?? []), blk]);
  }
  const dominant = (blk: BlockEntry) => blk.node.writes.every((w) => (writers.get(w.buffer) ?? []).every((b) => b === blk));
  return children.find((blk) => !(isLocalComplete(blk, dominant(blk)) || isLocalReduction(index, blk, dominant(blk))));
}

function isLocalComplete(blk: BlockEntry, dominant: boolean): boolean {
  const b = blk.node;
  if (!dominant || !b.iterVars.every((iv) => iv.iterType === "spatial")) return false;
  const written = new Set(b.writes.map((w) => w.buffer));
  return !b.reads.some((r) => written.has(r.buffer));
}

function isLocalReduction(index: TreeIndex, blk: BlockEntry, dominant: boolean): boolean {
  const b = blk.node;
  if (b.init === undefined || !dominant || !hasAffineBinding(index, blk)) return false;
  if (!b.iterVars.every((iv) => iv.iterType === "spatial" || iv.iterType === "reduce")) return false;
  const reduceVars = new Set<Var>(b.iterVars.filter((iv) => iv.iterType === "reduce").map((iv) => iv.var));
  let indexesOutput = false;
  for (const w of b.writes) {
    for (const r of w.region) {
      for (const e of [r.min, r.extent]) {
        forEachExpr(e, (x) => {
          if (x.kind === "Var" && reduceVars.has(x)) indexesOutput = true;
        });
      }
    }
  }
  return !indexesOutput;
}

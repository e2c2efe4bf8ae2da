/**
 * TVM's `LeafBlockRemovalPlan`: how to take a leaf block out of its scope. Climb from the block
 * through loops that would become empty, up to the first loop (or the scope block) whose body is a
 * sequence with more than one statement, and drop the climbed subtree from that sequence. A block
 * that is the only leaf of its scope cannot be removed.
 */
import { type Block, type For, type Stmt, seq } from "@tessera/ir";
import { ScheduleError } from "../errors.js";
import type { BlockEntry, NodeEntry } from "../state/tree-index.js";
import { nameOf } from "./schedule-checks.js";

export class OnlyLeafError extends ScheduleError {
  override name = "OnlyLeafError";
  constructor(primitive: string, leaf: Block, scope: Block | undefined) {
    super(
      primitive,
      `Block ${nameOf(leaf)} is the only leaf in the scope${scope ? ` ${nameOf(scope)}` : ""}, which cannot be removed; Otherwise the scope will be empty.`,
      scope ? [leaf, scope] : [leaf],
    );
  }
}

export interface LeafRemovalPlan {
  /** The loop or scope block whose body loses a statement. */
  readonly src: For | Block;
  /** Its replacement (an object-spread copy, so it keeps its schedule id). */
  readonly tgt: For | Block;
}

export function planLeafBlockRemoval(primitive: string, leaf: BlockEntry): LeafRemovalPlan {
  let last: Stmt = leaf.realize;
  let p: NodeEntry | undefined = leaf.parent;
  while (p !== undefined && p.kind === "loop") {
    const body = p.node.body;
    if (body.kind === "SeqStmt" && body.seq.length > 1) break;
    last = p.node;
    p = p.parent;
  }
  const holder = p?.node;
  if (holder !== undefined && holder.body.kind === "SeqStmt") {
    const kept = holder.body.seq.filter((s) => s !== last);
    return { src: holder, tgt: { ...holder, body: seq(kept) } as For | Block };
  }
  throw new OnlyLeafError(primitive, leaf.node, holder?.kind === "Block" ? holder : undefined);
}

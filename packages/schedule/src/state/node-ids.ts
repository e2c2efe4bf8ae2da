/**
 * Stable node ids. Every `Block` and `For` inside a schedule carries a hidden, enumerable symbol
 * property holding its id. Because IR rewriting copies nodes with object spread (`{...node, body}`),
 * the id follows a node through every rewrite that keeps it (a loop whose body changed is the same
 * loop), while nodes built from scratch have none and get a fresh id when the schedule re-indexes.
 * A primitive that *duplicates* a subtree must call `stripIds` on the copy, so that two nodes never
 * share an id (the index checks this).
 */
import type { Block, For, Stmt } from "@tessera/ir";
import { StatementMutator } from "./statement-mutator.js";

const NODE_ID = Symbol("tessera.schedule.nodeId");

type Tagged = { [NODE_ID]?: number };

let nextId = 1;

export type SchedulableNode = Block | For;

export function nodeIdOf(node: SchedulableNode): number | undefined {
  return (node as Tagged)[NODE_ID];
}

/** Tags a node that has no id yet (a freshly built node owned by the schedule). */
export function assignFreshId(node: SchedulableNode): number {
  const id = nextId++;
  Object.defineProperty(node, NODE_ID, { value: id, enumerable: true, writable: false, configurable: true });
  return id;
}

/** A copy of `node` with a new id (used when the node is shared with code outside the schedule). */
export function cloneWithFreshId<T extends SchedulableNode>(node: T): T {
  const copy = { ...node } as T;
  delete (copy as Tagged)[NODE_ID];
  assignFreshId(copy);
  return copy;
}

/** Removes ids from a whole subtree (for duplicated code, e.g. decompose-reduction's init loops). */
export function stripIds(stmt: Stmt): Stmt {
  return new IdStripper().visitStmt(stmt);
}

class IdStripper extends StatementMutator {
  override visitFor(s: For): Stmt {
    const out = super.visitFor(s);
    return untagged(out === s ? { ...s } : out);
  }
  override visitBlock(b: Block): Block {
    const out = super.visitBlock(b);
    return untagged(out === b ? { ...b } : out);
  }
}

function untagged<T extends object>(node: T): T {
  delete (node as Tagged)[NODE_ID];
  return node;
}

/**
 * Accesses to block-shared storage, as the barrier planner (`threadSync`) sees them: which buffer
 * (by its `data` variable), read or write, and at which index — or no index when the access
 * stands for many elements (a summary of a loop over it).
 */
import { type Buffer, type PrimExpr, type Var, forEachExpr, sameExprStructure, usesVar } from "@tessera/ir";

export interface SharedAccess {
  readonly kind: "read" | "write";
  readonly buffer: Buffer;
  /** Undefined: any element (the access was summarised over a loop or a binding). */
  readonly indices: readonly PrimExpr[] | undefined;
}

export type AccessEntry = SharedAccess | { readonly kind: "sync" };

export function isSharedScope(buffer: Buffer): boolean {
  return buffer.scope === "shared" || buffer.scope === "shared.dyn";
}

/** Reads of shared buffers in `e`, in evaluation order (inner loads first). */
export function sharedReads(e: PrimExpr): SharedAccess[] {
  const out: SharedAccess[] = [];
  forEachExpr(e, (x) => {
    if (x.kind === "BufferLoad" && isSharedScope(x.buffer)) out.push({ kind: "read", buffer: x.buffer, indices: x.indices });
  });
  return out;
}

/** The entries as seen outside the scope of `v`: indices that use `v` no longer name one element. */
export function relaxOver(entries: readonly AccessEntry[], v: Var): AccessEntry[] {
  return entries.map((a) =>
    a.kind === "sync" || a.indices === undefined || !a.indices.some((i) => usesVar(i, (x) => x === v))
      ? a
      : { ...a, indices: undefined },
  );
}

/**
 * Do two accesses of the same block touch an element that another thread touches? Only when
 * both name the same single element per thread (structurally equal point indices using every
 * thread index of the block) is the answer no. `changing` are variables whose value differs
 * between the two accesses (the loop variable, for a loop-carried check).
 */
export function mayConflict(
  prev: SharedAccess,
  curr: SharedAccess,
  threadVars: readonly Var[],
  changing: readonly Var[],
): boolean {
  if (prev.buffer.data !== curr.buffer.data) return false;
  if (prev.indices === undefined || curr.indices === undefined) return true;
  if (prev.indices.length !== curr.indices.length) return true;
  if (!prev.indices.every((x, i) => sameExprStructure(x, curr.indices![i]!))) return true;
  const indices = curr.indices;
  const uses = (v: Var): boolean => indices.some((i) => usesVar(i, (x) => x === v));
  if (indices.some((i) => i.kind === "Ramp" || i.dtype.includes("x"))) return true;
  if (changing.some(uses)) return true;
  return !threadVars.every(uses);
}


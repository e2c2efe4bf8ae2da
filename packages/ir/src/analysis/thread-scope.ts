/**
 * Thread tags of `thread_binding` loops (`blockIdx.x`, `threadIdx.y`, `vthread.x`, …) and which
 * storage scopes may be relaxed over them (TVM's `CanRelaxStorageUnderThread`): memory visible to
 * a group of threads is shared across them, so a stage computing it must cover what all of them
 * need. Shared by the schedule (compute-at regions) and lowering (buffer compaction).
 */
import { STORAGE_RANKS, type StorageScope, storageRankOf } from "../buffer.js";
import { IRError } from "../errors.js";

export function isBlockIdxTag(tag: string): boolean {
  return tag.startsWith("blockIdx.");
}

export function isThreadIdxTag(tag: string): boolean {
  return tag.startsWith("threadIdx.");
}

export function isVirtualThreadTag(tag: string): boolean {
  return tag.startsWith("vthread") || tag === "cthread";
}

/** A real launch dimension (`blockIdx.*` / `threadIdx.*`), as opposed to a virtual thread. */
export function isLaunchTag(tag: string): boolean {
  return isBlockIdxTag(tag) || isThreadIdxTag(tag);
}

/** TVM's numeric storage rank (StorageRank): global 0, shared 1, warp 2, local 3, then the fragment and target memories. */
function storageRank(scope: StorageScope): number {
  const rank = storageRankOf(scope);
  if (rank === undefined) throw new IRError(`unknown storage scope "${scope}"`);
  return STORAGE_RANKS.indexOf(rank);
}

export function isGlobalScope(scope: StorageScope): boolean {
  return storageRank(scope) === 0;
}

/** Thread ranks: blockIdx 0, threadIdx / vthread 1. */
function threadRank(tag: string): number | undefined {
  if (isVirtualThreadTag(tag) || isThreadIdxTag(tag)) return 1;
  if (isBlockIdxTag(tag)) return 0;
  return undefined;
}

/**
 * May a buffer of `scope` be relaxed over a loop bound to `tag`? Memory shared by the threads of
 * that loop (shared memory over threadIdx, global over everything) must cover all of them; memory
 * private to each thread (local) must not.
 */
export function canRelaxStorageUnderThread(scope: StorageScope, tag: string): boolean {
  const rank = threadRank(tag);
  if (rank === undefined) return false;
  if (scope === "warp") return tag === "threadIdx.x";
  return storageRank(scope) <= rank;
}

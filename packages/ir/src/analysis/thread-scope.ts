/**
 * Thread tags of `thread_binding` loops (`blockIdx.x`, `threadIdx.y`, `vthread.x`, …) and which
 * storage scopes may be relaxed over them (TVM's `CanRelaxStorageUnderThread`): memory visible to
 * a group of threads is shared across them, so a stage computing it must cover what all of them
 * need. Shared by the schedule (compute-at regions) and lowering (buffer compaction).
 */
import type { StorageScope } from "../buffer.js";

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

/** Storage ranks: global 0, shared 1, warp 2, local 3, tensor-core fragments 4. */
function storageRank(scope: StorageScope): number {
  switch (scope) {
    case "global":
      return 0;
    case "shared":
    case "shared.dyn":
      return 1;
    case "warp":
      return 2;
    case "local":
      return 3;
    // Tensor-core fragments rank after local in TVM (StorageRank kWMMAMatrixA…): private to a thread's warp slot.
    case "wmma.matrix_a":
    case "wmma.matrix_b":
    case "wmma.accumulator":
      return 4;
  }
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

/**
 * Which thread-bound loops a buffer's accesses may be relaxed over (TVM's
 * `CanRelaxStorageUnderThread`): memory visible to a group of threads is shared across them, so a
 * stage computing it must cover what all of them need. Shared memory relaxes over threadIdx and
 * vthread, warp memory over threadIdx.x only, local memory over nothing; global is never relaxed.
 */
import type { StorageScope } from "@tessera/ir";

/** Storage ranks: global 0, shared 1, warp 2, local 3. */
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
  }
}

/** Thread ranks: blockIdx 0, threadIdx / vthread 1; dim index 0 for `.x`. */
function threadScope(tag: string): { rank: number; dim: number } | undefined {
  if (tag.startsWith("vthread") || tag === "cthread") return { rank: 1, dim: -1 };
  const m = /^(blockIdx|threadIdx)\.([xyz])$/.exec(tag);
  if (m === null) return undefined;
  return { rank: m[1] === "blockIdx" ? 0 : 1, dim: "xyz".indexOf(m[2]!) };
}

export function isGlobalScope(scope: StorageScope): boolean {
  return storageRank(scope) === 0;
}

export function canRelaxStorageUnderThread(scope: StorageScope, threadTag: string): boolean {
  const t = threadScope(threadTag);
  if (t === undefined) return false;
  if (scope === "warp") return t.rank === 1 && t.dim === 0;
  return storageRank(scope) <= t.rank;
}

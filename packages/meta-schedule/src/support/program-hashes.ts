/**
 * The structural hashes of a scheduled function, computed once per function object: a replay asks
 * for both — VerifyGPUCode's verdict memo keys on the hash with names (a renamed function may
 * lower to different code), the search identifies the program by the hash without (TVM's
 * structural identity) — and one canonical walk gives both (`structuralHashes`). The IR is
 * immutable, so a function object's hashes never change.
 */
import { type PrimFunc, type StructuralHashes, structuralHashes } from "@tessera/ir";

const HASHES = new WeakMap<PrimFunc, StructuralHashes>();

/** `func`'s structural hashes without and with names, from the memo or one walk. */
export function programHashesOf(func: PrimFunc): StructuralHashes {
  let hashes = HASHES.get(func);
  if (hashes === undefined) {
    hashes = structuralHashes(func);
    HASHES.set(func, hashes);
  }
  return hashes;
}

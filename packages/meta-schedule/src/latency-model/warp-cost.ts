/**
 * What one warp-wide memory instruction costs, from the byte addresses of its 32 lanes: global
 * accesses in 128-byte lines touched (one L1 wavefront each; a coalesced float access touches
 * one, an access with a 2048-float stride per lane touches 32), shared accesses in wavefronts by
 * the simulator's bank model (bank conflicts included).
 */
import { WavefrontCounter } from "@tessera/simulator";

export const WARP = 32;
export const LINE_BYTES = 128;
/** The address of a lane that takes no part in the access. */
export const INACTIVE = -1;

/** The thread index (x, y, z) of `lane` of warp `warp` in a block of shape `block`, or undefined past the block. */
export function laneThreadIndex(warp: number, lane: number, block: readonly [number, number, number]): [number, number, number] | undefined {
  const linear = warp * WARP + lane;
  const [bx, by, bz] = block;
  if (linear >= bx * by * bz) return undefined;
  return [linear % bx, Math.floor(linear / bx) % by, Math.floor(linear / (bx * by))];
}

/** Lines of `LINE_BYTES` that the active lanes' accesses of `widthBytes` each touch. */
export function globalLines(addresses: readonly number[], widthBytes: number): number {
  const touched = new Set<number>();
  for (const address of addresses) {
    if (address === INACTIVE) continue;
    const last = Math.floor((address + widthBytes - 1) / LINE_BYTES);
    for (let line = Math.floor(address / LINE_BYTES); line <= last; line++) touched.add(line);
  }
  return touched.size;
}

/** One counter for every access (it keeps its scratch space; a fresh one allocated 4 KB an access). */
const COUNTER = new WavefrontCounter();

/**
 * Shared-memory wavefronts of the access, and those it would need without bank conflicts:
 * `addresses` holds the 32 lanes' byte addresses, at least one of them active.
 */
export function sharedWavefronts(addresses: readonly number[], widthBytes: number, kind: "load" | "store"): { wavefronts: number; ideal: number } {
  // The bank model knows accesses of up to 16 bytes per lane; a wider one is that many 16-byte ones.
  const cost = COUNTER;
  cost.count(addresses, 0, Math.min(widthBytes, 16), kind);
  const split = Math.max(1, widthBytes / 16);
  return { wavefronts: cost.wavefronts * split, ideal: cost.idealWavefronts * split };
}

/** The cost of an access whose addresses are unknown: the best case, 32 contiguous lanes. */
export function contiguousCost(widthBytes: number): number {
  return Math.ceil((WARP * widthBytes) / LINE_BYTES);
}

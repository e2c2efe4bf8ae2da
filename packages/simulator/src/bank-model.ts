/**
 * How many shared-memory wavefronts one warp-level access needs on an NVIDIA GPU: 32 banks, each
 * 4 bytes wide, word `w` (byte address >> 2) in bank `w % 32`. A wavefront reads or writes at most
 * one word per bank; threads that access the same word share it (a broadcast on loads), so a bank
 * needs as many wavefronts as the distinct words it holds.
 *
 * Accesses wider than 4 bytes are split into phases, as the hardware does (NVIDIA/cutlass#328): a
 * 64-bit access is processed per half-warp (lanes 0–15, 16–31), a 128-bit access per quarter-warp
 * (lanes 0–7, …, 24–31); conflicts only arise within a phase. A phase with an active thread needs
 * at least one wavefront, so the ideal — no conflict — is one wavefront per active phase.
 *
 * A 64- or 128-bit *load* whose lanes pair up — every active lane n reads the address of lane
 * n ^ 1 (where that lane is active), or every one that of lane n ^ 2 — has phases twice as wide
 * (a whole warp, half-warps): a pair's data is fetched once. NVIDIA describes this for Volta and
 * Turing (forums.developer.nvidia.com/t/unexpected-shared-memory-bank-conflict/77228), and Nsight
 * Compute counts it so on an H100 (the measurements are in test/bank-model.test.ts); stores never
 * pair.
 */
import { SimulationError } from "./errors.js";

export const WARP_SIZE = 32;
/** A power of two (`word & (BANKS - 1)` is the bank). */
export const BANKS = 32;
const BANK_BYTES = 4;

/** Value of an address slot whose lane did not take part in the access. */
export const INACTIVE = -1;

/** The cost of one warp-level access. */
export interface WarpAccessCost {
  /** Wavefronts the access needs. */
  readonly wavefronts: number;
  /** Wavefronts it would need without bank conflicts (one per phase with an active lane). */
  readonly idealWavefronts: number;
  /** The largest number of distinct words one bank holds in one phase (1: conflict-free). */
  readonly way: number;
}

/** Phases of an unpaired warp access of `widthBytes` per thread: 1 up to 4 bytes, 2 for 8, 4 for 16. */
export function phasesOf(widthBytes: number): number {
  return Math.max(1, Math.min(WARP_SIZE, Math.ceil(widthBytes / BANK_BYTES)));
}

/** Whether every two active lanes n and n ^ `partner` access the same address. */
function pairsUp(addresses: ArrayLike<number>, offset: number, partner: number): boolean {
  for (let lane = 0; lane < WARP_SIZE; lane++) {
    const mine = addresses[offset + lane]!;
    const theirs = addresses[offset + (lane ^ partner)]!;
    if (mine !== theirs && mine !== INACTIVE && theirs !== INACTIVE) return false;
  }
  return true;
}

/**
 * Counts the wavefronts of warp accesses. One instance keeps its scratch space, so counting does
 * not allocate; the result of the last `count` is in `wavefronts`, `idealWavefronts` and `way`.
 */
export class WavefrontCounter implements WarpAccessCost {
  wavefronts = 0;
  idealWavefronts = 0;
  way = 0;
  /**
   * Each phase has its own stamp; a word or bank entry holding an older stamp is untouched in the
   * current phase, so nothing needs clearing between phases.
   */
  private stamp = 0;
  /** The stamp of the last phase that accessed each word (grown to the largest word seen). */
  private wordStamp = new Int32Array(1024);
  private readonly bankStamp = new Int32Array(BANKS);
  /** Distinct words each bank holds in the phase of its stamp. */
  private readonly bankWords = new Int32Array(BANKS);

  /**
   * Costs the access (a load or a store) whose lane `l` accessed `widthBytes` bytes at byte address
   * `addresses[offset + l]` (`INACTIVE` for a lane that took no part).
   */
  count(addresses: ArrayLike<number>, offset: number, widthBytes: number, access: "load" | "store"): void {
    let phases = phasesOf(widthBytes);
    if (access === "load" && phases > 1 && (pairsUp(addresses, offset, 1) || pairsUp(addresses, offset, 2))) phases /= 2;
    const lanesPerPhase = WARP_SIZE / phases;
    this.wavefronts = 0;
    this.idealWavefronts = 0;
    this.way = 0;
    for (let phase = 0; phase < phases; phase++) {
      const first = offset + phase * lanesPerPhase;
      this.nextStamp();
      let active = false;
      let way = 0;
      for (let lane = first; lane < first + lanesPerPhase; lane++) {
        const address = addresses[lane]!;
        if (address === INACTIVE) continue;
        active = true;
        // Shared byte addresses are small non-negative integers: `>>> 2` is the word.
        const last = (address + widthBytes - 1) >>> 2;
        for (let word = address >>> 2; word <= last; word++) {
          const held = this.addWord(word);
          if (held > way) way = held;
        }
      }
      if (!active) continue;
      this.wavefronts += way;
      this.idealWavefronts++;
      if (way > this.way) this.way = way;
    }
  }

  /** Adds `word` to its bank in this phase; returns the distinct words the bank now holds (0: it held `word` already). */
  private addWord(word: number): number {
    if (word >= this.wordStamp.length) this.growWords(word);
    const stamp = this.stamp;
    if (this.wordStamp[word] === stamp) return 0;
    this.wordStamp[word] = stamp;
    const bank = word & (BANKS - 1);
    if (this.bankStamp[bank] !== stamp) {
      this.bankStamp[bank] = stamp;
      this.bankWords[bank] = 0;
    }
    return ++this.bankWords[bank]!;
  }

  private nextStamp(): void {
    if (this.stamp === 0x7fffffff) {
      this.stamp = 0;
      this.wordStamp.fill(0);
      this.bankStamp.fill(0);
    }
    this.stamp++;
  }

  private growWords(word: number): void {
    let size = this.wordStamp.length;
    while (size <= word) size *= 2;
    const grown = new Int32Array(size);
    grown.set(this.wordStamp);
    this.wordStamp = grown;
  }
}

/** The cost of one warp access: `addresses[l]` is lane l's byte address, `INACTIVE` when it took no part. */
export function warpAccessCost(addresses: readonly number[], widthBytes: number, access: "load" | "store"): WarpAccessCost {
  if (addresses.length !== WARP_SIZE) throw new SimulationError(`warpAccessCost: a warp access has ${WARP_SIZE} lanes, got ${addresses.length}`);
  if (!addresses.some((a) => a !== INACTIVE)) throw new SimulationError("warpAccessCost: a warp access needs at least one active lane");
  const counter = new WavefrontCounter();
  counter.count(addresses, 0, widthBytes, access);
  return { wavefronts: counter.wavefronts, idealWavefronts: counter.idealWavefronts, way: counter.way };
}

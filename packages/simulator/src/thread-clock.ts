/**
 * Which thread runs, in which barrier interval (epoch) of which block; the block runner advances
 * it, the race shadows and the bank-conflict recorder read it. Epochs number the barrier intervals
 * of every block of a launch in the order they run (from 1; 0 means "never"), so an epoch says
 * both the interval and the block: an epoch before `blockStart` belongs to an earlier block.
 */
import type { Dim3 } from "./dims.js";

/** The epoch no access happens in (shadow entries start there). */
export const NEVER = 0;

export class ThreadClock {
  /** The current barrier interval; unique across the blocks of a launch. */
  epoch = NEVER;
  /** The epoch the current block started in. */
  blockStart = NEVER;
  /** Linear thread index in the block. */
  thread = 0;
  block: Dim3 = [0, 0, 0];
  /** The first epoch of each block run so far, ascending, and the blocks. */
  private readonly starts: number[] = [];
  private readonly blocks: Dim3[] = [];

  /** Enters the first barrier interval of `block`. */
  startBlock(block: Dim3): void {
    this.block = block;
    this.epoch++;
    this.blockStart = this.epoch;
    this.starts.push(this.epoch);
    this.blocks.push(block);
  }

  /** Crosses a barrier. */
  nextInterval(): void {
    this.epoch++;
  }

  /** The block that ran in `epoch` (an epoch of this launch, not NEVER). */
  blockOf(epoch: number): Dim3 {
    return this.blocks[this.runIndexOf(epoch)]!;
  }

  /** The barrier interval of `epoch` within its block (0: before the first barrier). */
  intervalOf(epoch: number): number {
    return epoch - this.starts[this.runIndexOf(epoch)]!;
  }

  /** Which block run (0: the first block run) `epoch` belongs to: the last one started at or before it. */
  private runIndexOf(epoch: number): number {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= epoch) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

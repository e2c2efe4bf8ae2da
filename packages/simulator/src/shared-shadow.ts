/**
 * The race detector: per-element shadow state of one shared-memory allocation. Threads of a block
 * run between barriers in an order of the simulator's choosing, so any two accesses by different
 * threads in one barrier interval (epoch) may happen in either order on a GPU; when one of them
 * is a write, that is a race (the bug a missing `__syncthreads()` causes).
 *
 * For each element we keep the last writer (thread and epoch) and the readers of the current
 * epoch: the first one and, when several threads read it, another one (the "many readers" mark),
 * so a later write by either of them still names a different reader. The epoch increases at every
 * barrier and at the start of every block, so entries from earlier intervals or blocks never match.
 */
import type { Dim3 } from "./dims.js";

/** Which thread runs, in which barrier interval; set by the block scheduler. */
export interface ThreadClock {
  /** The current barrier interval; unique across blocks. */
  epoch: number;
  /** The epoch the current block started in (elements not written since then were never written by it). */
  blockStart: number;
  /** Linear thread index in the block. */
  thread: number;
  block: Dim3;
}

export type RaceKind = "write-write" | "read-after-write" | "write-after-read";

/** A conflict as the shadow sees it; threads are linear indices within the block. */
export interface RawConflict {
  readonly kind: RaceKind;
  readonly storage: string;
  readonly index: number;
  /** The earlier access's thread. */
  readonly firstThread: number;
  readonly secondThread: number;
  /** Access site (see `AccessSite`) of the second access. */
  readonly site: number;
  readonly block: Dim3;
  /** Barrier interval within the block (0 before the first barrier). */
  readonly interval: number;
}

export interface RawUninitializedRead {
  readonly storage: string;
  readonly index: number;
  readonly thread: number;
  readonly site: number;
  readonly block: Dim3;
}

/** Receives what the shadows find. */
export interface ShadowSink {
  conflict(c: RawConflict): void;
  uninitialized(r: RawUninitializedRead): void;
}

const NEVER = -1;

export class SharedShadow {
  private readonly writer: Int32Array;
  private readonly writeEpoch: Int32Array;
  private readonly reader: Int32Array;
  /** A second thread that read the element in `readEpoch` (NEVER when only `reader` did). */
  private readonly otherReader: Int32Array;
  private readonly readEpoch: Int32Array;

  constructor(
    /** The allocation's name (for reports). */
    readonly storage: string,
    size: number,
    private readonly clock: ThreadClock,
    private readonly sink: ShadowSink,
  ) {
    this.writer = new Int32Array(size);
    this.writeEpoch = new Int32Array(size).fill(NEVER);
    this.reader = new Int32Array(size);
    this.otherReader = new Int32Array(size);
    this.readEpoch = new Int32Array(size).fill(NEVER);
  }

  /** Records a load of element `i` at access site `site`; returns `i`. */
  read(i: number, site: number): number {
    const clock = this.clock;
    const epoch = clock.epoch;
    const thread = clock.thread;
    const writeEpoch = this.writeEpoch[i]!;
    if (writeEpoch === epoch) {
      const writer = this.writer[i]!;
      if (writer !== thread) this.report("read-after-write", i, writer, site);
    } else if (writeEpoch < clock.blockStart) {
      this.sink.uninitialized({ storage: this.storage, index: i, thread, site, block: clock.block });
    }
    if (this.readEpoch[i] !== epoch) {
      this.readEpoch[i] = epoch;
      this.reader[i] = thread;
      this.otherReader[i] = NEVER;
    } else if (this.reader[i] !== thread) {
      this.otherReader[i] = thread;
    }
    return i;
  }

  /** Records a store to element `i` at access site `site`; returns `i`. */
  write(i: number, site: number): number {
    const clock = this.clock;
    const epoch = clock.epoch;
    const thread = clock.thread;
    if (this.writeEpoch[i] === epoch && this.writer[i] !== thread) this.report("write-write", i, this.writer[i]!, site);
    if (this.readEpoch[i] === epoch) {
      const reader = this.reader[i]!;
      const other = reader !== thread ? reader : this.otherReader[i]!;
      if (other !== NEVER) this.report("write-after-read", i, other, site);
    }
    this.writeEpoch[i] = epoch;
    this.writer[i] = thread;
    return i;
  }

  private report(kind: RaceKind, index: number, firstThread: number, site: number): void {
    const clock = this.clock;
    this.sink.conflict({
      kind,
      storage: this.storage,
      index,
      firstThread,
      secondThread: clock.thread,
      site,
      block: clock.block,
      interval: clock.epoch - clock.blockStart,
    });
  }
}

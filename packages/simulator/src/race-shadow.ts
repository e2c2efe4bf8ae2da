/**
 * The race detector: per-element shadow state of one memory a launch shares between threads — a
 * shared-memory allocation (per block) or a global buffer the kernel writes (per launch).
 *
 * Threads of a block run between barriers in an order of the simulator's choosing, so any two
 * accesses by different threads of one block in one barrier interval (epoch) may happen in either
 * order on a GPU; when one of them is a write, that is a race (the bug a missing `__syncthreads()`
 * causes). Thread blocks of a launch have no order at all: in global memory, two accesses by
 * different blocks, one of them a write, race whatever the barriers (the bug of a reduction split
 * over blocks without atomics). Shared memory is fresh in every block, so there entries left by
 * an earlier block are not conflicts but "never written here".
 *
 * For each element we keep the last writer (thread and epoch) and the readers of the latest epoch
 * it was read in: the first one and, when several threads read it, another one (the "many
 * readers" mark), so a later write by either of them still names a different reader. In global
 * memory we also keep one read by an earlier block (the latest block's reads move there when
 * another block first reads the element), so a write still sees that some other block read it.
 *
 * Only the blocks that run are seen: with a selection of blocks (block-selection.ts), cross-block
 * races are found between the selected blocks only.
 *
 * The state lives in pages allocated on first touch, so a large output of which a sample of blocks
 * writes a few tiles costs memory for those tiles only.
 */
import type { Dim3 } from "./dims.js";
import { NEVER, type ThreadClock } from "./thread-clock.js";

export type MemoryScope = "shared" | "global";

export type RaceKind = "write-write" | "read-after-write" | "write-after-read";

/** A conflict as the shadow sees it; threads are linear indices within their blocks. */
export interface RawConflict {
  readonly kind: RaceKind;
  readonly scope: MemoryScope;
  readonly storage: string;
  readonly index: number;
  /** The earlier access's thread and epoch (its block and interval follow from the epoch). */
  readonly firstThread: number;
  readonly firstEpoch: number;
  readonly secondThread: number;
  /** Access site (see `AccessSite`) of the second access. */
  readonly site: number;
  /** The second access's block. */
  readonly block: Dim3;
  /** The second access's barrier interval within its block (0 before the first barrier). */
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
  /** Counts a conflict in `scope`; true when the sink wants it described (then `conflict` follows). */
  countConflict(scope: MemoryScope): boolean;
  conflict(c: RawConflict): void;
  uninitialized(r: RawUninitializedRead): void;
}

/** Elements per page (a power of two). */
const PAGE_BITS = 8;
const PAGE_MASK = (1 << PAGE_BITS) - 1;

/** An element's fields, at `FIELDS` Int32s per element (a power of two: one shift finds them). */
const WRITE_EPOCH = 0;
const WRITER = 1;
const READ_EPOCH = 2;
const READER = 3;
/** Another thread that read in READ_EPOCH, plus one (0: only READER did). */
const OTHER_READER_PLUS_1 = 4;
/** A read by an earlier block (global memory only). */
const FOREIGN_READ_EPOCH = 5;
const FOREIGN_READER = 6;
const FIELD_BITS = 3;

/**
 * The writer of an element a bulk asynchronous copy landed: no thread. The mbarrier runtime checks
 * that every access to it waits for the landing (mbarrier-runtime.ts), so the shadow reports no
 * race with it, and a read of it is not a read of never-written memory.
 */
export const ASYNC_PROXY = -2;

export class RaceShadow {
  /** Page k holds elements [k << PAGE_BITS, (k + 1) << PAGE_BITS); undefined until touched. */
  private readonly pages: (Int32Array | undefined)[];
  /** Accesses of earlier blocks conflict (global memory); otherwise they are stale (shared memory). */
  private readonly blocksUnordered: boolean;

  constructor(
    /** The buffer's name (for reports). */
    readonly storage: string,
    readonly scope: MemoryScope,
    elements: number,
    private readonly clock: ThreadClock,
    private readonly sink: ShadowSink,
  ) {
    this.blocksUnordered = scope === "global";
    // Filled, so that the array stays packed however sparsely pages are touched.
    this.pages = new Array<Int32Array | undefined>(Math.ceil(elements / (1 << PAGE_BITS))).fill(undefined);
  }

  // read and write run on every shadowed access: they stay small so that V8 inlines them into the
  // thread function (its inlining budget is per function, shared by all access sites), and leave
  // the rarer cases to the methods after them.

  /** Records a load of element `i` at access site `site`; returns `i`. */
  read(i: number, site: number): number {
    const state = this.pages[i >>> PAGE_BITS] ?? this.newPage(i);
    const at = (i & PAGE_MASK) << FIELD_BITS;
    const clock = this.clock;
    const epoch = clock.epoch;
    const writeEpoch = state[at + WRITE_EPOCH]!;
    if (writeEpoch === epoch ? state[at + WRITER] !== clock.thread : writeEpoch < clock.blockStart) this.readUnordered(state, at, i, site);
    if (state[at + READ_EPOCH] !== epoch) this.firstReadInEpoch(state, at);
    else if (state[at + READER] !== clock.thread) state[at + OTHER_READER_PLUS_1] = clock.thread + 1;
    return i;
  }

  /** Records a store to element `i` at access site `site`; returns `i`. */
  write(i: number, site: number): number {
    const state = this.pages[i >>> PAGE_BITS] ?? this.newPage(i);
    const at = (i & PAGE_MASK) << FIELD_BITS;
    const clock = this.clock;
    // Only an access of this epoch, or in global memory one of an earlier block, can conflict.
    if (state[at + WRITE_EPOCH] === clock.epoch || state[at + READ_EPOCH] === clock.epoch || this.blocksUnordered) {
      this.writeUnordered(state, at, i, site);
    }
    state[at + WRITE_EPOCH] = clock.epoch;
    state[at + WRITER] = clock.thread;
    return i;
  }

  /** Element `i` was landed by a bulk copy now (see ASYNC_PROXY). */
  landAsync(i: number): void {
    const state = this.pages[i >>> PAGE_BITS] ?? this.newPage(i);
    const at = (i & PAGE_MASK) << FIELD_BITS;
    state[at + WRITE_EPOCH] = this.clock.epoch;
    state[at + WRITER] = ASYNC_PROXY;
  }

  /** The running thread is the element's first reader in this epoch. */
  private firstReadInEpoch(state: Int32Array, at: number): void {
    const clock = this.clock;
    const readEpoch = state[at + READ_EPOCH]!;
    if (this.blocksUnordered && readEpoch !== NEVER && readEpoch < clock.blockStart) {
      state[at + FOREIGN_READ_EPOCH] = readEpoch;
      state[at + FOREIGN_READER] = state[at + READER]!;
    }
    state[at + READ_EPOCH] = clock.epoch;
    state[at + READER] = clock.thread;
    state[at + OTHER_READER_PLUS_1] = 0;
  }

  /** A load whose element was last written by another thread of this epoch, or before this block. */
  private readUnordered(state: Int32Array, at: number, i: number, site: number): void {
    const clock = this.clock;
    const writeEpoch = state[at + WRITE_EPOCH]!;
    if (writeEpoch === clock.epoch) {
      if (state[at + WRITER] !== ASYNC_PROXY) this.report("read-after-write", i, state[at + WRITER]!, writeEpoch, site);
    } else if (!this.blocksUnordered) {
      this.sink.uninitialized({ storage: this.storage, index: i, thread: clock.thread, site, block: clock.block });
    } else if (writeEpoch !== NEVER) {
      this.report("read-after-write", i, state[at + WRITER]!, writeEpoch, site);
    }
  }

  /** A store to an element accessed in this epoch, or (global memory) maybe by an earlier block. */
  private writeUnordered(state: Int32Array, at: number, i: number, site: number): void {
    const clock = this.clock;
    const epoch = clock.epoch;
    const thread = clock.thread;
    const writeEpoch = state[at + WRITE_EPOCH]!;
    if ((writeEpoch === epoch && state[at + WRITER] !== thread && state[at + WRITER] !== ASYNC_PROXY) || this.byEarlierBlock(writeEpoch)) {
      this.report("write-write", i, state[at + WRITER]!, writeEpoch, site);
    }
    const readEpoch = state[at + READ_EPOCH]!;
    if (readEpoch === epoch) {
      const reader = state[at + READER]!;
      const other = reader !== thread ? reader : state[at + OTHER_READER_PLUS_1]! - 1;
      if (other >= 0) this.report("write-after-read", i, other, epoch, site);
    } else if (this.byEarlierBlock(readEpoch)) {
      this.report("write-after-read", i, state[at + READER]!, readEpoch, site);
    }
    const foreignEpoch = state[at + FOREIGN_READ_EPOCH]!;
    if (this.byEarlierBlock(foreignEpoch)) this.report("write-after-read", i, state[at + FOREIGN_READER]!, foreignEpoch, site);
  }

  /** An access in `epoch` was made by an earlier block and conflicts (global memory). */
  private byEarlierBlock(epoch: number): boolean {
    return this.blocksUnordered && epoch !== NEVER && epoch < this.clock.blockStart;
  }

  /** The page of element `i`, zero-filled: every epoch NEVER. */
  private newPage(i: number): Int32Array {
    const state = new Int32Array((1 << PAGE_BITS) << FIELD_BITS);
    this.pages[i >>> PAGE_BITS] = state;
    return state;
  }

  private report(kind: RaceKind, index: number, firstThread: number, firstEpoch: number, site: number): void {
    // A racy kernel may conflict on every access: most are only counted.
    if (!this.sink.countConflict(this.scope)) return;
    const clock = this.clock;
    this.sink.conflict({
      kind,
      scope: this.scope,
      storage: this.storage,
      index,
      firstThread,
      firstEpoch,
      secondThread: clock.thread,
      site,
      block: clock.block,
      interval: clock.epoch - clock.blockStart,
    });
  }
}

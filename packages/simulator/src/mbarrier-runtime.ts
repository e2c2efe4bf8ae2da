/**
 * mbarriers and bulk asynchronous copies (ir's mbarrier.ts) in the simulator, per thread block.
 *
 * An mbarrier counts the arrivals of its current phase down from its init count and carries a
 * transaction count of bytes still to come; the phase completes when both are done, and a thread
 * waiting with `mbarrier_wait_parity(bar, p)` passes once the phase of parity p has completed
 * (before any phase completes, parity 1 passes: the phase "before phase 0").
 *
 * Copies land as late as the rules allow, which makes a missing or misplaced wait visible without
 * a GPU:
 * - a bulk copy reads its source when issued and lands when its barrier's phase completes, and a
 *   phase completes only when it must: when a thread waits for it, when the next arrival needs
 *   it, or when the block ends;
 * - while a copy is in flight, any thread's access to its destination is an error (the consumer
 *   reads before its wait, or the producer refills a stage the consumers still read because it
 *   did not wait for the stage's "empty" barrier);
 * - each landed element remembers its barrier and phase, and a thread may access it only after
 *   it has itself waited for that phase (another warp's wait does not order this thread);
 * - a wait that passes when the barrier is more than one phase ahead of what the thread has seen
 *   is an error: the parity then names a later phase than the thread's (the barrier lapped it,
 *   e.g. a producer that does not wait for its stage to be free);
 * - a thread blocked in a wait yields `MBARRIER_YIELD`; the block runner runs the others and
 *   retries it, and reports a deadlock when no thread can move (a wrong parity, a missing arrival).
 * The race detector sees a landing as a write of the asynchronous proxy, ordered by these rules
 * rather than by barrier intervals (race-shadow.ts).
 */
import { type TensorMapSpec, swizzledOffset, tmaDestinationAlignment } from "@tessera/ir";
import type { IssuedCopy } from "@tessera/ir/executor-kit";
import { SimulationError } from "./errors.js";
import type { RaceShadow } from "./race-shadow.js";
import type { ThreadClock } from "./thread-clock.js";

/** A tensor map as the generated JavaScript passes it. */
export type TensorMapJs = Pick<TensorMapSpec, "buffer" | "shape" | "rowStride" | "box" | "swizzle">;

/** What a thread yields while it waits for an mbarrier phase. */
export const MBARRIER_YIELD = -3;

type Elements = ArrayLike<number> & { [i: number]: number };

interface BulkCopy {
  readonly dst: Elements;
  readonly dstIndex: number;
  readonly values: ArrayLike<number>;
  readonly bytes: number;
  readonly thread: number;
}

interface Mbarrier {
  readonly id: number;
  readonly name: string;
  readonly count: number;
  /** Arrivals the current phase still expects. */
  pending: number;
  /** Phases completed so far (the current phase's parity is `completed & 1`). */
  completed: number;
  /** Bytes the current phase expects (expect_tx) not yet landed. */
  tx: number;
  /** Copies issued against the current phase, not landed. */
  copies: BulkCopy[];
  /** cp.async copies whose threads arrived (`cp_async_mbarrier_arrive`) in the current phase, not landed. */
  cpAsync: IssuedCopy[];
}

/** Per shared array: which copy is writing each element, and which phase landed it. */
interface Destination {
  readonly name: string;
  /** Barrier id + 1 of the copy in flight (0: none). */
  readonly inflight: Int32Array;
  /** Barrier id + 1 whose phase landed the element (0: not landed by a bulk copy, or since overwritten). */
  readonly landedBy: Int32Array;
  readonly landedPhase: Int32Array;
  readonly shadow: RaceShadow | undefined;
}

export class BlockMbarriers {
  private barriers: Mbarrier[] = [];
  private readonly byArray = new Map<Elements, Map<number, Mbarrier>>();
  private readonly destinations = new Map<Elements, Destination>();
  /** Per thread: barrier id → phases that thread has seen complete. */
  private observed: Map<number, number>[] = [];
  /** Per thread: the wait it last failed (for deadlock reports). */
  private waiting: string[] = [];
  private sharedNames = new Map<Elements, string>();
  private sharedShadows = new Map<Elements, RaceShadow>();
  /** Counts every state change, so that the block runner can tell progress from a deadlock. */
  events = 0;
  /** Called with the arriving thread at each arrival (the wgmma runtime publishes the warp's retired groups). */
  onArrive: ((thread: number) => void) | undefined;

  constructor(
    private readonly kernel: string,
    private readonly clock: ThreadClock,
  ) {}

  /** A fresh block: its shared arrays (named, with their race shadows when detecting races). */
  startBlock(shared: readonly { readonly array: Elements; readonly name: string; readonly shadow: RaceShadow | undefined }[]): void {
    this.barriers = [];
    this.byArray.clear();
    this.destinations.clear();
    this.observed = [];
    this.waiting = [];
    this.sharedNames = new Map(shared.map((s) => [s.array, s.name]));
    this.sharedShadows = new Map(shared.flatMap((s) => (s.shadow === undefined ? [] : [[s.array, s.shadow] as const])));
  }

  init(array: Elements, index: number, count: number): void {
    if (!Number.isInteger(count) || count < 1 || count > 2 ** 20 - 1)
      this.fail(`mbarrier_init of ${this.nameOf(array, index)} with count ${count}: it must be 1 to 2^20 − 1`);
    let slots = this.byArray.get(array);
    if (slots === undefined) this.byArray.set(array, (slots = new Map()));
    const existing = slots.get(index);
    if (existing !== undefined && (existing.completed > 0 || existing.pending !== existing.count || existing.copies.length + existing.cpAsync.length > 0))
      this.fail(`mbarrier_init of ${existing.name}, which is in use (phase ${existing.completed}, ${existing.count - existing.pending} arrivals)`);
    const b: Mbarrier = { id: this.barriers.length, name: this.nameOf(array, index), count, pending: count, completed: 0, tx: 0, copies: [], cpAsync: [] };
    this.barriers.push(b);
    slots.set(index, b);
    this.events++;
  }

  arrive(array: Elements, index: number): void {
    this.arriveOn(this.barrier(array, index, "mbarrier_arrive"), 0);
  }

  arriveExpectTx(array: Elements, index: number, bytes: number): void {
    if (!Number.isInteger(bytes) || bytes < 0) this.fail(`mbarrier_arrive_expect_tx on ${this.nameOf(array, index)} with ${bytes} bytes`);
    this.arriveOn(this.barrier(array, index, "mbarrier_arrive_expect_tx"), bytes);
  }

  /**
   * `cp_async_mbarrier_arrive`: one arrival on the barrier, made when `copies` (the thread's
   * cp.async copies not landed yet) complete; they land with the phase.
   */
  arriveAfterCopies(array: Elements, index: number, copies: readonly IssuedCopy[]): void {
    const b = this.barrier(array, index, "cp_async_mbarrier_arrive");
    this.arriveOn(b, 0);
    for (const c of copies) {
      const d = this.destination(c.dst);
      for (let i = c.dstIndex; i < c.dstIndex + c.lanes; i++) {
        const other = d.inflight[i]!;
        if (other !== 0) this.fail(`a cp.async to ${d.name}[${i}] overlaps a copy still in flight on ${this.barriers[other - 1]!.name}`);
        d.inflight[i] = b.id + 1;
      }
      b.cpAsync.push(c);
    }
  }

  /** One try of `mbarrier_wait_parity`: true when the phase of `parity` has completed (then the thread has seen it). */
  tryWait(array: Elements, index: number, parity: number): boolean {
    const b = this.barrier(array, index, "mbarrier_wait_parity");
    if (parity !== 0 && parity !== 1) this.fail(`mbarrier_wait_parity on ${b.name} with parity ${parity}: it must be 0 or 1`);
    if ((b.completed & 1) === parity && this.completable(b)) this.complete(b);
    if ((b.completed & 1) === parity) {
      this.waiting[this.clock.thread] = `${b.name} for parity ${parity}`;
      return false;
    }
    this.events++;
    // The phase waited for is the latest completed one (phase completed − 1, of that parity): the
    // thread has now seen the first `completed` phases.
    const seen = this.observedBy(this.clock.thread);
    const before = seen.get(b.id) ?? 0;
    if (b.completed - before > 1) {
      this.fail(
        `thread ${this.clock.thread}'s wait on ${b.name} for parity ${parity} passed with ${b.completed} phases completed, of which it had seen ${before}: ` +
          "the barrier ran more than one phase ahead of the thread, so the parity names a later phase than the one it waits for (is a producer missing its wait for the stage to be free?)",
      );
    }
    seen.set(b.id, b.completed);
    return true;
  }

  /** `cp_async_bulk`: `elements` elements of `elementBytes` from src[srcIndex…] to the shared dst[dstIndex…], completing on the barrier. */
  bulkCopy(dst: Elements, dstIndex: number, src: Elements, srcIndex: number, bytes: number, elementBytes: number, barArray: Elements, barIndex: number): void {
    const b = this.barrier(barArray, barIndex, "cp_async_bulk");
    const what = `cp_async_bulk of ${bytes} bytes to ${this.sharedNames.get(dst) ?? "shared memory"}[${dstIndex}]`;
    if (!Number.isInteger(bytes) || bytes <= 0 || bytes % 16 !== 0) this.fail(`${what}: a bulk copy moves a positive multiple of 16 bytes`);
    if (((dstIndex * elementBytes) & 15) !== 0 || ((srcIndex * elementBytes) & 15) !== 0)
      this.fail(`${what} from element ${srcIndex}: both addresses must be 16-byte aligned`);
    const elements = bytes / elementBytes;
    if (dstIndex < 0 || dstIndex + elements > dst.length) this.fail(`${what}: outside the destination's ${dst.length} elements`);
    if (srcIndex < 0 || srcIndex + elements > src.length)
      this.fail(`${what}: reads elements ${srcIndex}…${srcIndex + elements - 1} of a source of ${src.length}`);
    const values = Float64Array.from({ length: elements }, (_, k) => src[srcIndex + k]!);
    this.issue(b, what, dst, dstIndex, values, bytes);
  }

  /**
   * `cp_async_bulk_tensor_2d`: the box of `map` whose first row and column are (`outer`, `inner`)
   * from `src` into the shared dst[dstIndex…], rows one after another, each byte offset swizzled
   * as the hardware places it; elements outside the tensor read as zeros. Its bytes (the whole
   * box) complete on the barrier.
   */
  tensorCopy(
    dst: Elements,
    dstIndex: number,
    src: Elements,
    map: TensorMapJs,
    inner: number,
    outer: number,
    elementBytes: number,
    barArray: Elements,
    barIndex: number,
  ): void {
    const b = this.barrier(barArray, barIndex, "cp_async_bulk_tensor_2d");
    const what = `cp_async_bulk_tensor_2d of ${map.buffer}'s box at (${outer}, ${inner}) to ${this.sharedNames.get(dst) ?? "shared memory"}[${dstIndex}]`;
    if (!Number.isInteger(inner) || !Number.isInteger(outer)) this.fail(`${what}: the coordinates must be integers`);
    const [rows, cols] = map.box;
    const elements = rows * cols;
    const alignment = tmaDestinationAlignment(map.swizzle);
    if ((dstIndex * elementBytes) % alignment !== 0)
      this.fail(`${what}: a box with the ${map.swizzle}-byte swizzle lands at a ${alignment}-byte aligned address, not at byte ${dstIndex * elementBytes}`);
    if (dstIndex < 0 || dstIndex + elements > dst.length) this.fail(`${what}: the ${rows}×${cols} box is outside the destination's ${dst.length} elements`);
    const values = new Float64Array(elements);
    for (let r = 0; r < rows; r++) {
      const row = outer + r;
      for (let c = 0; c < cols; c++) {
        const col = inner + c;
        const inside = row >= 0 && row < map.shape[0] && col >= 0 && col < map.shape[1];
        const at = swizzledOffset((r * cols + c) * elementBytes, map.swizzle) / elementBytes;
        values[at] = inside ? src[row * map.rowStride + col]! : 0;
      }
    }
    this.issue(b, what, dst, dstIndex, values, elements * elementBytes);
  }

  /** A bulk copy of `values` (in destination order) issued against `b`, landing when its phase completes. */
  private issue(b: Mbarrier, what: string, dst: Elements, dstIndex: number, values: Float64Array, bytes: number): void {
    if (b.pending === 0 && this.completable(b)) this.complete(b);
    const d = this.destination(dst);
    for (let k = dstIndex; k < dstIndex + values.length; k++) {
      const other = d.inflight[k]!;
      if (other !== 0)
        this.fail(
          `${what} overlaps a bulk copy still in flight on ${this.barriers[other - 1]!.name} (element ${k}): the stage was refilled before its phase completed`,
        );
      d.inflight[k] = b.id + 1;
    }
    b.copies.push({ dst, dstIndex, values, bytes, thread: this.clock.thread });
    this.events++;
  }

  /** Checks the running thread's access to shared element `i` of `array`; returns `i`. */
  access(array: Elements, i: number, write: boolean): number {
    const d = this.destinations.get(array);
    if (d === undefined) return i;
    const verb = write ? "writes" : "reads";
    const inflight = d.inflight[i]!;
    if (inflight !== 0) {
      const b = this.barriers[inflight - 1]!;
      this.fail(`thread ${this.clock.thread} ${verb} ${d.name}[${i}] while a copy completing on ${b.name} (phase ${b.completed}) is writing it`);
    }
    const by = d.landedBy[i]!;
    if (by !== 0) {
      const phase = d.landedPhase[i]!;
      if ((this.observedBy(this.clock.thread).get(by - 1) ?? 0) <= phase) {
        this.fail(
          `thread ${this.clock.thread} ${verb} ${d.name}[${i}], which a bulk copy landed when phase ${phase} of ${this.barriers[by - 1]!.name} completed, without having waited for that phase`,
        );
      }
      if (write) d.landedBy[i] = 0;
    }
    return i;
  }

  /** The block ends: copies still in flight land (nothing can read them any more). */
  endBlock(): void {
    for (const b of this.barriers) if (b.copies.length + b.cpAsync.length > 0) this.complete(b);
  }

  /** What thread `t` waits for, and the barriers' states: for a deadlock report. */
  describeWait(t: number): string {
    return this.waiting[t] ?? "an mbarrier";
  }

  describeBarriers(): string {
    return this.barriers
      .map((b) => `${b.name}: ${b.completed} phases completed, ${b.pending} of ${b.count} arrivals missing, ${b.tx} bytes expected`)
      .join("; ");
  }

  private arriveOn(b: Mbarrier, bytes: number): void {
    this.onArrive?.(this.clock.thread);
    if (b.pending === 0) {
      if (!this.completable(b))
        this.fail(`an arrival on ${b.name}, whose phase ${b.completed} has all its ${b.count} arrivals and still waits for bytes of bulk copies`);
      this.complete(b);
    }
    b.tx += bytes;
    b.pending--;
    this.events++;
  }

  /** All arrivals in, and the copies in flight carry exactly the bytes still expected. */
  private completable(b: Mbarrier): boolean {
    return b.pending === 0 && b.tx === b.copies.reduce((acc, c) => acc + c.bytes, 0);
  }

  private complete(b: Mbarrier): void {
    for (const c of b.copies) this.land(b, c);
    for (const c of b.cpAsync) this.land(b, { dst: c.dst, dstIndex: c.dstIndex, values: c.values ?? new Float64Array(c.lanes), bytes: 0, thread: -1 });
    b.copies = [];
    b.cpAsync = [];
    b.tx = 0;
    b.completed++;
    b.pending = b.count;
    this.events++;
  }

  private land(b: Mbarrier, c: BulkCopy): void {
    const d = this.destination(c.dst);
    for (let k = 0; k < c.values.length; k++) {
      const i = c.dstIndex + k;
      c.dst[i] = c.values[k]!;
      d.inflight[i] = 0;
      d.landedBy[i] = b.id + 1;
      d.landedPhase[i] = b.completed;
      d.shadow?.landAsync(i);
    }
  }

  private destination(array: Elements): Destination {
    let d = this.destinations.get(array);
    if (d === undefined) {
      const n = array.length;
      const name = this.sharedNames.get(array);
      if (name === undefined) this.fail("cp_async_bulk: the destination must be a shared allocation of the kernel");
      d = { name, inflight: new Int32Array(n), landedBy: new Int32Array(n), landedPhase: new Int32Array(n), shadow: this.sharedShadows.get(array) };
      this.destinations.set(array, d);
    }
    return d;
  }

  private barrier(array: Elements, index: number, op: string): Mbarrier {
    const b = this.byArray.get(array)?.get(index);
    if (b === undefined)
      this.fail(`${op} on ${this.nameOf(array, index)}, which no mbarrier_init of this block initialised (initialise it, then __syncthreads)`);
    return b;
  }

  private observedBy(thread: number): Map<number, number> {
    let m = this.observed[thread];
    if (m === undefined) this.observed[thread] = m = new Map();
    return m;
  }

  private nameOf(array: Elements, index: number): string {
    return `${this.sharedNames.get(array) ?? "an array that is not shared memory"}[${index}]`;
  }

  private fail(detail: string): never {
    throw new SimulationError(`kernel ${this.kernel}, block (${this.clock.block.join(", ")}): ${detail}`);
  }
}

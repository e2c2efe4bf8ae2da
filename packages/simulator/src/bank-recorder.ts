/**
 * Pairs the shared-memory accesses of the threads of a warp into warp-level accesses and costs
 * them with the bank model. Threads of a warp are the block's linear thread ids 32w … 32w+31;
 * thread t's n-th execution of an instruction slot pairs with the n-th execution of that slot by
 * the other threads of its warp (lanes that never get there are inactive).
 *
 * Executions are counted per barrier interval: a warp-level instruction never spans a barrier,
 * and the block runner runs each thread of a warp, one after another, up to the next barrier. So
 * the accesses of one warp in one interval arrive together, and are costed when the next warp or
 * interval starts (or at `finish`): only one warp's addresses are held at a time.
 */
import { INACTIVE, WARP_SIZE, WavefrontCounter } from "./bank-model.js";
import type { BankSlot } from "./bank-sites.js";
import type { ThreadClock } from "./thread-clock.js";

/** Instances of a slot held before the first growth. */
const INITIAL_INSTANCES = 16;

/** Totals of one site. */
export interface SiteTotals {
  readonly instructions: Float64Array;
  readonly wavefronts: Float64Array;
  readonly idealWavefronts: Float64Array;
  /** The largest way (distinct words in one bank in one phase) of any instruction of the site. */
  readonly worstWay: Float64Array;
}

export class BankConflictRecorder {
  readonly totals: SiteTotals;
  private thread = -1;
  private epoch = -1;
  private warp = -1;
  private lane = 0;
  /** Per slot: executions by the current thread in the current interval. */
  private readonly executions: Int32Array;
  /** Per slot: instances the current warp's earlier threads reached in the current interval. */
  private readonly instances: Int32Array;
  /** Per slot: lane l's byte address in instance n at `n * 32 + l`. */
  private readonly addresses: Int32Array[];
  private readonly counter = new WavefrontCounter();
  /** Per slot: bytes per element of its buffer. */
  private readonly elementBytes: Int32Array;

  constructor(
    private readonly clock: ThreadClock,
    private readonly slots: readonly BankSlot[],
    sites: number,
  ) {
    this.elementBytes = Int32Array.from(slots, (s) => s.elementBytes);
    this.executions = new Int32Array(slots.length);
    this.instances = new Int32Array(slots.length);
    this.addresses = slots.map(() => new Int32Array(INITIAL_INSTANCES * WARP_SIZE).fill(INACTIVE));
    this.totals = {
      instructions: new Float64Array(sites),
      wavefronts: new Float64Array(sites),
      idealWavefronts: new Float64Array(sites),
      worstWay: new Float64Array(sites),
    };
  }

  /** Records that the running thread accessed element `index` through `slot`; returns `index`. */
  record(index: number, slot: number): number {
    const clock = this.clock;
    if (clock.thread !== this.thread || clock.epoch !== this.epoch) this.startThread(clock.thread, clock.epoch);
    const instance = this.executions[slot]!++;
    let addresses = this.addresses[slot]!;
    if ((instance + 1) * WARP_SIZE > addresses.length) addresses = this.grow(slot);
    addresses[instance * WARP_SIZE + this.lane] = index * this.elementBytes[slot]!;
    return index;
  }

  /**
   * Records one warp-level access whose lanes' byte addresses are already gathered (an ldmatrix:
   * lane l gives the 16-byte row address l; `INACTIVE` for lanes that give none).
   */
  recordWarpAccess(site: number, addresses: ArrayLike<number>, widthBytes: number, access: "load" | "store"): void {
    const { instructions, wavefronts, idealWavefronts, worstWay } = this.totals;
    this.counter.count(addresses, 0, widthBytes, access);
    instructions[site] = instructions[site]! + 1;
    wavefronts[site] = wavefronts[site]! + this.counter.wavefronts;
    idealWavefronts[site] = idealWavefronts[site]! + this.counter.idealWavefronts;
    worstWay[site] = Math.max(worstWay[site]!, this.counter.way);
  }

  /** Costs the accesses still held (call once every block ran). */
  finish(): void {
    this.countInstances();
    this.executions.fill(0);
    this.costWarp();
    this.thread = -1;
    this.epoch = -1;
    this.warp = -1;
  }

  private startThread(thread: number, epoch: number): void {
    const warp = Math.floor(thread / WARP_SIZE);
    this.countInstances();
    if (epoch !== this.epoch || warp !== this.warp) this.costWarp();
    this.thread = thread;
    this.epoch = epoch;
    this.warp = warp;
    this.lane = thread % WARP_SIZE;
    this.executions.fill(0);
  }

  /** Folds the previous thread's executions into the warp's instance counts. */
  private countInstances(): void {
    const { executions, instances } = this;
    for (let slot = 0; slot < executions.length; slot++) {
      if (executions[slot]! > instances[slot]!) instances[slot] = executions[slot]!;
    }
  }

  /** Costs the held instances of every slot and clears them. */
  private costWarp(): void {
    const { instructions, wavefronts, idealWavefronts, worstWay } = this.totals;
    const counter = this.counter;
    for (let slot = 0; slot < this.slots.length; slot++) {
      const count = this.instances[slot]!;
      if (count === 0) continue;
      const { site, access, widthBytes } = this.slots[slot]!;
      const addresses = this.addresses[slot]!;
      let slotWavefronts = 0;
      let slotIdeal = 0;
      let slotWay = 0;
      for (let instance = 0; instance < count; instance++) {
        counter.count(addresses, instance * WARP_SIZE, widthBytes, access);
        slotWavefronts += counter.wavefronts;
        slotIdeal += counter.idealWavefronts;
        slotWay = Math.max(slotWay, counter.way);
      }
      instructions[site] = instructions[site]! + count;
      wavefronts[site] = wavefronts[site]! + slotWavefronts;
      idealWavefronts[site] = idealWavefronts[site]! + slotIdeal;
      worstWay[site] = Math.max(worstWay[site]!, slotWay);
      addresses.fill(INACTIVE, 0, count * WARP_SIZE);
      this.instances[slot] = 0;
    }
  }

  private grow(slot: number): Int32Array {
    const old = this.addresses[slot]!;
    const grown = new Int32Array(old.length * 2).fill(INACTIVE);
    grown.set(old);
    this.addresses[slot] = grown;
    return grown;
  }
}

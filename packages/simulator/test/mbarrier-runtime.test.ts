/**
 * The mbarrier runtime alone (mbarrier-runtime.ts): phase and parity rules, transaction counts,
 * when copies land, and the errors for misuse.
 */
import { describe, expect, it } from "vitest";
import { BlockMbarriers } from "../src/mbarrier-runtime.js";
import { RaceShadow } from "../src/race-shadow.js";
import { ThreadClock } from "../src/thread-clock.js";

function block(): { m: BlockMbarriers; bars: Float64Array; stage: Float32Array; clock: ThreadClock } {
  const clock = new ThreadClock();
  clock.startBlock([0, 0, 0]);
  const m = new BlockMbarriers("k", clock);
  const bars = new Float64Array(2);
  const stage = new Float32Array(8).fill(-1);
  m.startBlock([
    { array: bars, name: "bars", shadow: undefined },
    { array: stage, name: "stage", shadow: undefined },
  ]);
  return { m, bars, stage, clock };
}

describe("BlockMbarriers", () => {
  it("a TMA box is placed swizzled with zeros outside the tensor, lands with its phase, and is refused where it cannot land", () => {
    const clock = new ThreadClock();
    clock.startBlock([0, 0, 0]);
    const m = new BlockMbarriers("k", clock);
    const bars = new Float64Array(1);
    const tile = new Float32Array(2 * 32 + 8).fill(-1);
    m.startBlock([
      { array: bars, name: "bars", shadow: undefined },
      { array: tile, name: "tile", shadow: undefined },
    ]);
    m.init(bars, 0, 1);
    // A 3×40 fp32 tensor; the box is 2 rows of 32 (128 bytes: the 128B swizzle) from row 2, column 8.
    const src = Float32Array.from({ length: 3 * 40 }, (_, i) => i + 1);
    const map = { buffer: "A", shape: [3, 40], rowStride: 40, box: [2, 32], swizzle: 128 } as const;
    m.arriveExpectTx(bars, 0, 256);
    m.tensorCopy(tile, 0, src, map, 8, 2, 4, bars, 0);
    expect(() => m.access(tile, 0, false)).toThrow(/thread 0 reads tile\[0\] while a copy completing on bars\[0\] \(phase 0\) is writing it/);
    expect(m.tryWait(bars, 0, 0)).toBe(true);
    // Row 0 (tensor row 2): unpermuted, columns 8…39 of the last row. Row 1 (row 3: outside) is zeros.
    expect(Array.from(tile.subarray(0, 32))).toEqual(Array.from({ length: 32 }, (_, c) => 2 * 40 + 8 + c + 1));
    expect(Array.from(tile.subarray(32, 64))).toEqual(new Array(32).fill(0));
    // A swizzled box lands on a 1024-byte boundary, and inside its destination.
    expect(() => m.tensorCopy(tile, 8, src, map, 0, 0, 4, bars, 0)).toThrow(
      /box with the 128-byte swizzle lands at a 1024-byte aligned address, not at byte 32/,
    );
    expect(() => m.tensorCopy(tile, 0, src, { ...map, box: [3, 32] }, 0, 0, 4, bars, 0)).toThrow(/the 3×32 box is outside the destination's 72 elements/);
  });

  it("parity 1 passes before any phase completes; a phase completes on its arrivals, and then parity 0 passes", () => {
    const { m, bars } = block();
    m.init(bars, 0, 2);
    expect(m.tryWait(bars, 0, 1)).toBe(true);
    expect(m.tryWait(bars, 0, 0)).toBe(false);
    m.arrive(bars, 0);
    expect(m.tryWait(bars, 0, 0)).toBe(false);
    m.arrive(bars, 0);
    expect(m.tryWait(bars, 0, 0)).toBe(true);
    expect(m.tryWait(bars, 0, 1)).toBe(false);
  });

  it("lands a copy only when its phase completes: after the arrivals and the expected bytes", () => {
    const { m, bars, stage } = block();
    m.init(bars, 0, 1);
    const src = Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8);
    m.bulkCopy(stage, 4, src, 0, 16, 4, bars, 0); // issued before its expect_tx: allowed
    src.fill(0); // the source was read at issue
    expect(m.tryWait(bars, 0, 0)).toBe(false);
    expect(Array.from(stage)).toEqual([-1, -1, -1, -1, -1, -1, -1, -1]);
    m.arriveExpectTx(bars, 0, 16);
    expect(Array.from(stage)).toEqual([-1, -1, -1, -1, -1, -1, -1, -1]);
    expect(m.tryWait(bars, 0, 0)).toBe(true);
    expect(Array.from(stage)).toEqual([-1, -1, -1, -1, 1, 2, 3, 4]);
    expect(m.access(stage, 5, false)).toBe(5);
  });

  it("does not complete a phase whose expected bytes exceed the copies issued", () => {
    const { m, bars, stage } = block();
    m.init(bars, 0, 1);
    m.arriveExpectTx(bars, 0, 32);
    m.bulkCopy(stage, 0, new Float32Array(8), 0, 16, 4, bars, 0);
    expect(m.tryWait(bars, 0, 0)).toBe(false);
    expect(() => m.arrive(bars, 0)).toThrow(/an arrival on bars\[0\], whose phase 0 has all its 1 arrivals and still waits for bytes of bulk copies/);
  });

  it("records a landing in the race shadow as a write of the asynchronous proxy: no race, not uninitialised", () => {
    const clock = new ThreadClock();
    clock.startBlock([0, 0, 0]);
    const found: string[] = [];
    const shadow = new RaceShadow("stage", "shared", 8, clock, {
      countConflict: () => true,
      conflict: (c) => found.push(c.kind),
      uninitialized: () => found.push("uninitialised"),
    });
    const m = new BlockMbarriers("k", clock);
    const [bars, stage] = [new Float64Array(1), new Float32Array(8)];
    m.startBlock([
      { array: bars, name: "bars", shadow: undefined },
      { array: stage, name: "stage", shadow },
    ]);
    m.init(bars, 0, 1);
    clock.thread = 3;
    m.arriveExpectTx(bars, 0, 16);
    m.bulkCopy(stage, 0, new Float32Array(8), 0, 16, 4, bars, 0);
    clock.thread = 7;
    expect(m.tryWait(bars, 0, 0)).toBe(true);
    shadow.read(m.access(stage, 2, false), 0);
    expect(found).toEqual([]);
    shadow.read(5, 0); // never landed
    expect(found).toEqual(["uninitialised"]);
  });

  it("refuses misuse by name: a bad count, parity or copy, and a barrier in use initialised again", () => {
    const { m, bars, stage } = block();
    expect(() => m.init(bars, 0, 0)).toThrow(/mbarrier_init of bars\[0\] with count 0/);
    m.init(bars, 0, 1);
    expect(() => m.tryWait(bars, 0, 2)).toThrow(/parity 2: it must be 0 or 1/);
    expect(() => m.bulkCopy(stage, 1, new Float32Array(8), 0, 16, 4, bars, 0)).toThrow(/both addresses must be 16-byte aligned/);
    expect(() => m.bulkCopy(stage, 4, new Float32Array(8), 0, 32, 4, bars, 0)).toThrow(/outside the destination's 8 elements/);
    expect(() => m.bulkCopy(stage, 0, new Float32Array(4), 0, 32, 4, bars, 0)).toThrow(/reads elements 0…7 of a source of 4/);
    expect(() => m.arrive(bars, 1)).toThrow(/mbarrier_arrive on bars\[1\], which no mbarrier_init of this block initialised/);
    m.arrive(bars, 0);
    m.tryWait(bars, 0, 0);
    expect(() => m.init(bars, 0, 1)).toThrow(/mbarrier_init of bars\[0\], which is in use \(phase 1/);
  });
});

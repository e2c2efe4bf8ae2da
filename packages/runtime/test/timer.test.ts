import { describe, expect, it } from "vitest";
import { summarize, timeEvaluator, type BatchTimer } from "@tessera/runtime";

/** A fake device: each run takes `perRun(i)` ms; records every batch size asked for. */
function fakeTimer(perRun: (call: number) => number): BatchTimer & { batches: number[]; warmups: number } {
  const t = {
    batches: [] as number[],
    warmups: 0,
    warmup() {
      t.warmups++;
    },
    timeBatch(number: number) {
      t.batches.push(number);
      return number * perRun(t.batches.length - 1);
    },
  };
  return t;
}

describe("summarize", () => {
  it("computes mean, median, min, max and population std", () => {
    const r = summarize([1, 2, 3, 4], 5);
    expect(r.mean).toBe(2.5);
    expect(r.median).toBe(2.5);
    expect(r.min).toBe(1);
    expect(r.max).toBe(4);
    expect(r.std).toBeCloseTo(Math.sqrt(1.25), 12);
    expect(r.number).toBe(5);
    expect(r.repeat).toBe(4);
    expect(summarize([5, 1, 3], 1).median).toBe(3);
  });
});

describe("timeEvaluator (TVM semantics)", () => {
  it("warms up once, then takes `repeat` samples of `number` runs when they are long enough", async () => {
    const t = fakeTimer(() => 50);
    const r = await timeEvaluator(t, { number: 3, repeat: 10, minRepeatMs: 100 });
    expect(t.warmups).toBe(1);
    expect(t.batches).toEqual(Array(10).fill(3));
    expect(r.samples).toEqual(Array(10).fill(50));
    expect(r.mean).toBe(50);
    expect(r.std).toBe(0);
  });

  it("grows number to max(min/perRun + 1, number*1.618) until a sample reaches minRepeatMs, and keeps it", async () => {
    const t = fakeTimer(() => 0.01); // 3 runs = 0.03 ms ≪ 100 ms
    const r = await timeEvaluator(t, { number: 3, repeat: 3, minRepeatMs: 100 });
    // 3 runs → 0.03 ms; number = trunc(max(100 / 0.01 + 1, 3 × 1.618)) = 10001 → 100.01 ms ≥ 100
    expect(t.batches).toEqual([3, 10001, 10001, 10001]);
    expect(r.number).toBe(10001);
    for (const s of r.samples) expect(s).toBeCloseTo(0.01, 12);
  });

  it("with stopAboveMsPerRun, takes a sample of runs slower than that as it is, and grows faster ones as TVM does", async () => {
    const slow = fakeTimer(() => 15);
    const r = await timeEvaluator(slow, { number: 3, repeat: 2, minRepeatMs: 100, stopAboveMsPerRun: 10 });
    expect(slow.batches).toEqual([3, 3]);
    expect(r.samples).toEqual([15, 15]);
    const fast = fakeTimer(() => 5);
    await timeEvaluator(fast, { number: 3, repeat: 1, minRepeatMs: 100, stopAboveMsPerRun: 10 });
    expect(fast.batches).toEqual([3, 21]);
    await expect(timeEvaluator(fast, { stopAboveMsPerRun: 0 })).rejects.toThrow(/stopAboveMsPerRun must be positive/);
  });

  it("with headroom, a sample grows to minRepeatMs × headroom, so that a slow first estimate does not cost a 1.618× longer sample", async () => {
    // The first 3 runs take 0.6 ms each (an idle GPU), later ones 0.5 ms.
    const slowStart = () => fakeTimer((call) => (call === 0 ? 0.6 : 0.5));
    const tvm = slowStart();
    await timeEvaluator(tvm, { number: 3, repeat: 1, minRepeatMs: 100 });
    // 100 / 0.6 + 1 = 167 runs = 83.5 ms, short; then max(100 / 0.5 + 1, 167 × 1.618) = 270 runs.
    expect(tvm.batches).toEqual([3, 167, 270]);
    const aimed = slowStart();
    await timeEvaluator(aimed, { number: 3, repeat: 1, minRepeatMs: 100, headroom: 1.25 });
    expect(aimed.batches).toEqual([3, 209]);
    await expect(timeEvaluator(aimed, { headroom: 0.5 })).rejects.toThrow(/headroom must be at least 1/);
  });

  it("with warm, skips the warm-up run (the caller has just run the launches)", async () => {
    const t = fakeTimer(() => 50);
    await timeEvaluator(t, { number: 3, repeat: 1, minRepeatMs: 100, warm: true });
    expect(t.warmups).toBe(0);
  });

  it("uses the golden-ratio step when it is the larger one", async () => {
    const t = fakeTimer(() => 30);
    await timeEvaluator(t, { number: 3, repeat: 1, minRepeatMs: 100 });
    // 3 × 30 = 90 < 100 → max(100/30 + 1, 4.854) = 4.854 → 4 runs = 120 ms
    expect(t.batches).toEqual([3, 4]);
  });

  it("stops retrying after limitZeroTimeIterations zero readings", async () => {
    const t = fakeTimer(() => 0);
    const r = await timeEvaluator(t, { number: 2, repeat: 2, minRepeatMs: 100, limitZeroTimeIterations: 5 });
    expect(t.batches).toEqual(Array(10).fill(2)); // zero readings do not grow number
    expect(r.samples).toEqual([0, 0]);
  });

  it("with minRepeatMs 0 never grows", async () => {
    const t = fakeTimer(() => 0.001);
    await timeEvaluator(t, { number: 7, repeat: 4, minRepeatMs: 0 });
    expect(t.batches).toEqual([7, 7, 7, 7]);
  });

  it("sleeps cooldownMs after every repeatsToCooldown-th sample", async () => {
    const t = fakeTimer(() => 200);
    const sleeps: number[] = [];
    await timeEvaluator(t, { number: 1, repeat: 5, minRepeatMs: 100, cooldownMs: 7, repeatsToCooldown: 2 }, { sleep: async (ms) => void sleeps.push(ms) });
    expect(sleeps).toEqual([7, 7, 7]); // after samples 0, 2, 4
  });

  it("rejects bad options", async () => {
    await expect(
      timeEvaluator(
        fakeTimer(() => 1),
        { number: 0 },
      ),
    ).rejects.toThrow(/number/);
    await expect(
      timeEvaluator(
        fakeTimer(() => 1),
        { repeat: 0 },
      ),
    ).rejects.toThrow(/repeat/);
  });
});

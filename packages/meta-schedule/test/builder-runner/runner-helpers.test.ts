/** The runners' helpers: the cache of seeded random arguments (drawn once per workload and seed) and the clock of measuring steps. */
import { describe, expect, it } from "vitest";
import type { ArgInfo } from "../../src/index.js";
import { RandomArgsCache, randomArgsFor } from "../../src/runner/random-args.js";
import { StepClock } from "../../src/runner/step-clock.js";

const A: ArgInfo[] = [{ kind: "TENSOR", dtype: "float32", shape: [8, 8] }];
const B: ArgInfo[] = [{ kind: "TENSOR", dtype: "int32", shape: [64] }];

describe("RandomArgsCache", () => {
  it("gives the arrays of a fresh draw, the same ones again for the same ArgInfo and seed", () => {
    const cache = new RandomArgsCache();
    const first = cache.get(A, 1);
    expect(first).toEqual(randomArgsFor(A, 1));
    expect(cache.get([{ ...A[0]! }], 1)).toBe(first);
    expect(cache.get(A, 2)).not.toBe(first);
    expect(cache.get(A, 2)).toEqual(randomArgsFor(A, 2));
  });

  it("tells apart dtypes and shapes of the same element count, and keeps only the last `capacity` lists", () => {
    const cache = new RandomArgsCache(2);
    const a = cache.get(A, 1);
    const b = cache.get(B, 1);
    expect(b).toEqual(randomArgsFor(B, 1));
    expect(cache.get([{ kind: "TENSOR", dtype: "float32", shape: [64] }], 1)).not.toBe(a);
    // A was the oldest of three: drawn again, equal values in new arrays.
    const again = cache.get(A, 1);
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
  });
});

describe("StepClock", () => {
  it("gives each step the time since the previous lap, adding up a step named twice", async () => {
    const clock = new StepClock();
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.lap("a");
    clock.lap("b");
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.lap("a");
    expect(Object.keys(clock.laps)).toEqual(["a", "b"]);
    expect(clock.laps.a).toBeGreaterThanOrEqual(38);
    expect(clock.laps.b).toBeLessThan(clock.laps.a!);
  });
});

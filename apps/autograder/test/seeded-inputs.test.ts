/**
 * The numerics rounds' seeded inputs, drawn once per (workload, size, seed, range): every copy a
 * run gets holds the very values the binding draws, a run that writes its copies changes nothing
 * for the next run, another workload (even of the same name) draws its own, and the kept arrays
 * stay within their byte budget, the least recently used going first.
 */
import type { WorkloadNumerics } from "@tessera/course-kit";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { MasterCache, clearSeededInputs, seededInputsStats, sharedInputs, withRunInputs } from "../src/grade/seeded-inputs.js";

const gemm = assignmentBinding("gemm-relu-add").numerics;
const transpose = assignmentBinding("d2l-transpose").numerics;

function bits(arrays: readonly Float32Array[]): Uint32Array[] {
  return arrays.map((a) => new Uint32Array(a.slice().buffer));
}

/** The bits of the inputs a run of this draw is given. */
function inputsToRun(numerics: WorkloadNumerics, n: number, seed: number, range: readonly [number, number]): Uint32Array[] {
  return withRunInputs(numerics, n, seed, range, bits);
}

beforeEach(() => clearSeededInputs());

describe("seeded inputs", () => {
  it("gives the binding's own draw, bit for bit, and draws each (size, seed, range) once", () => {
    const range = fc.tuple(fc.float({ min: -4, max: 0, noNaN: true }), fc.float({ min: Math.fround(0.5), max: 4, noNaN: true }));
    fc.assert(
      fc.property(fc.constantFrom(gemm, transpose), fc.integer({ min: 1, max: 48 }), fc.nat({ max: 2 ** 31 }), range, (numerics, n, seed, r) => {
        clearSeededInputs();
        const expected = bits(numerics.inputs(n, seed, r));
        expect(inputsToRun(numerics, n, seed, r)).toEqual(expected);
        expect(inputsToRun(numerics, n, seed, [r[0], r[1]])).toEqual(expected);
        expect(bits(sharedInputs(numerics, n, seed, r))).toEqual(expected);
        expect(seededInputsStats().draws).toBe(1);
        // Another seed, size or range is another draw.
        expect(inputsToRun(numerics, n, seed + 1, r)).toEqual(bits(numerics.inputs(n, seed + 1, r)));
        expect(inputsToRun(numerics, n + 1, seed, r)).toEqual(bits(numerics.inputs(n + 1, seed, r)));
        expect(inputsToRun(numerics, n, seed, [r[0], r[1] + 1])).toEqual(bits(numerics.inputs(n, seed, [r[0], r[1] + 1])));
        expect(seededInputsStats().draws).toBe(4);
      }),
      { numRuns: 60 },
    );
  });

  it("hands each run copies: a run that writes its inputs does not change the next run's", () => {
    const expected = inputsToRun(gemm, 16, 5, [-1, 1]);
    withRunInputs(gemm, 16, 5, [-1, 1], (inputs) => {
      for (const a of inputs) a.fill(123);
    });
    expect(inputsToRun(gemm, 16, 5, [-1, 1])).toEqual(expected);
    expect(bits(sharedInputs(gemm, 16, 5, [-1, 1]))).toEqual(expected);
    // A run that throws leaves nothing behind either.
    expect(() =>
      withRunInputs(gemm, 16, 5, [-1, 1], (inputs) => {
        inputs[0]!.fill(7);
        throw new Error("the kernel failed");
      }),
    ).toThrow("the kernel failed");
    expect(inputsToRun(gemm, 16, 5, [-1, 1])).toEqual(expected);
    expect(seededInputsStats().draws).toBe(1);
  });

  it("gives a run inside a run arrays of its own", () => {
    const outer = inputsToRun(gemm, 16, 1, [-1, 1]);
    const inner = inputsToRun(gemm, 16, 2, [-1, 1]);
    withRunInputs(gemm, 16, 1, [-1, 1], (outerInputs) => {
      expect(withRunInputs(gemm, 16, 2, [-1, 1], bits)).toEqual(inner);
      expect(bits(outerInputs)).toEqual(outer);
    });
  });

  it("keeps the draws of another workload apart, also under the same name", () => {
    const doubled: WorkloadNumerics = { ...gemm, inputs: (n, seed, range) => gemm.inputs(n, seed, range).map((a) => a.map((x) => 2 * x)) };
    const a = inputsToRun(gemm, 8, 1, [0, 1]);
    const b = inputsToRun(doubled, 8, 1, [0, 1]);
    expect(b).toEqual(bits(doubled.inputs(8, 1, [0, 1])));
    expect(b).not.toEqual(a);
    expect(inputsToRun(gemm, 8, 1, [0, 1])).toEqual(a);
    expect(seededInputsStats().draws).toBe(2);
  });
});

describe("MasterCache", () => {
  const arrays = (floats: number) => [new Float32Array(floats)];

  it("drops the least recently used arrays past its byte budget", () => {
    const cache = new MasterCache(64);
    cache.set("a", arrays(8));
    cache.set("b", arrays(4));
    expect(cache.bytes).toBe(48);
    cache.get("a"); // "b" is now the least recently used
    cache.set("c", arrays(5)); // 68 bytes: one must go
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.bytes).toBe(52);
  });

  it("keeps nothing larger than its budget, and a key once", () => {
    const cache = new MasterCache(64);
    cache.set("big", arrays(17));
    expect(cache.get("big")).toBeUndefined();
    expect(cache.bytes).toBe(0);
    const first = arrays(4);
    cache.set("k", first);
    cache.set("k", arrays(4));
    expect(cache.get("k")).toBe(first);
    expect(cache.bytes).toBe(16);
  });
});

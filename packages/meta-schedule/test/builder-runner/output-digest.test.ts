import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareArguments, compareDigests } from "../../src/runner/checker.js";
import { digestOf, sampleIndices } from "../../src/runner/output-digest.js";

describe("output digests of a checked run", () => {
  it("samples distinct ascending indices, the first and last included, the same on every call", () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 50_000 }), fc.integer({ min: 2, max: 2_000 }), (length, count) => {
        const picked = sampleIndices(length, count);
        if (length <= count) {
          expect(picked).toBeUndefined();
          return;
        }
        expect(picked!.length).toBe(count);
        expect(picked![0]).toBe(0);
        expect(picked![count - 1]).toBe(length - 1);
        for (let k = 1; k < count; k++) expect(picked![k]!).toBeGreaterThan(picked![k - 1]!);
        expect(Array.from(sampleIndices(length, count)!)).toEqual(Array.from(picked!));
      }),
      { numRuns: 60 },
    );
  });

  it("keeps every element when asked for all, and the sums of float arguments", () => {
    const a = Float32Array.from([1, -2, 3.5]);
    const d = digestOf(a, "all");
    expect(d).toMatchObject({ length: 3, indices: undefined, sum: 2.5, absSum: 6.5 });
    expect(Array.from(d.values as Float32Array)).toEqual([1, -2, 3.5]);
    expect(digestOf(Int32Array.from([1, 2]), "all").sum).toBeUndefined();
  });

  it("passes results within tolerance and catches any one element off by more, sampled or not", () => {
    const tol = { rtol: 1e-4, atol: 1e-4 };
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true }), { minLength: 64, maxLength: 400 }),
        fc.nat(),
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.constantFrom(-1, 1),
        (values, at, size, sign) => {
          const reference = Float32Array.from(values);
          const close = reference.map((x) => x + 0.5e-4 * Math.sign(x));
          const digest = (a: Float32Array) => [digestOf(a, 8)];
          expect(compareDigests(digest(close), digest(reference), tol)).toBeUndefined();
          const wrong = reference.slice();
          const i = at % wrong.length;
          // Far beyond what every element's tolerance allows together (n·atol + rtol·Σ|x| ≤ 0.04 + 0.16 here).
          wrong[i] = wrong[i]! + sign * size;
          expect(compareDigests(digest(wrong), digest(reference), tol)).toMatch(/argument 0/);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("allows two ulps for float16/bfloat16 arguments given their dtypes, float32 ones unchanged", () => {
    const reference = Float32Array.from([1, 2, 3]);
    // One float16 ulp off at 2 (2^-9): outside 1e-4, inside float16's two ulps.
    const halfOff = Float32Array.from([1, 2 + 2 ** -9, 3]);
    const all = (a: Float32Array) => [digestOf(a, "all")];
    expect(compareDigests(all(halfOff), all(reference))).toMatch(/argument 0, element 1/);
    expect(compareDigests(all(halfOff), all(reference), {}, ["float32"])).toMatch(/argument 0, element 1/);
    expect(compareDigests(all(halfOff), all(reference), {}, ["float16"])).toBeUndefined();
    const bfloatOff = Float32Array.from([1, 2 + 2 ** -6, 3]);
    expect(compareDigests(all(bfloatOff), all(reference), {}, ["float16"])).toMatch(/element 1/);
    expect(compareDigests(all(bfloatOff), all(reference), {}, ["bfloat16"])).toBeUndefined();
  });

  it("names arguments sampled differently instead of comparing unrelated elements", () => {
    const a = new Float32Array(100);
    expect(compareDigests([digestOf(a, 10)], [digestOf(a, 20)])).toMatch(/sampled at other elements/);
  });

  it("compareArguments compares every element of whole arrays", () => {
    const want = [Float32Array.from([1, 2, 3]), Int32Array.from([4, 5])];
    expect(compareArguments([Float32Array.from([1, 2, 3.00001]), Int32Array.from([4, 5])], want)).toBeUndefined();
    expect(compareArguments([Float32Array.from([1, 2, 3]), Int32Array.from([4, 6])], want)).toBe(
      "argument 1, element 1: 6, expected 5 (rtol 0.0001, atol 0.0001)",
    );
    expect(compareArguments([Float32Array.from([1, 2])], want)).toBe("1 arguments came back, 2 expected");
  });
});

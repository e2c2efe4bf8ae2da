/** The float64 references of Y = Xᵀ the grader compares with, against the IR executor. */
import { compilePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { binding } from "../binding/index.js";
import { transposeReference, transposeReferenceAt } from "../binding/reference.js";

describe("the transpose references", () => {
  const n = 12;
  const X = Float32Array.from({ length: n * n }, (_, i) => Math.sin(i * 1.3) * 0.9);

  it("agree with the sequential executor of the workload's IR", () => {
    const Y = new Float32Array(n * n);
    compilePrimFunc(binding.workload(n)).run([X, Y]);
    expect([...transposeReference(X, n)]).toEqual([...Y]);
  });

  it("give the elements asked for, in the order asked, and refuse an index outside the output", () => {
    const full = transposeReference(X, n);
    const indices = [n * n - 1, 0, 5 * n + 7, 7 * n + 5];
    expect([...transposeReferenceAt(X, n, indices)]).toEqual(indices.map((i) => full[i]!));
    expect(() => transposeReferenceAt(X, n, [n * n])).toThrow(/index 144 \(position 0\) is outside the 12×12 output/);
  });

  it("are what the binding hands the grader, on inputs drawn from a seed", () => {
    const [input] = binding.numerics.inputs(n, 3, [-1, 1]);
    expect(binding.numerics.inputs(n, 3, [-1, 1])[0]).toEqual(input);
    expect([...binding.numerics.referenceAt([input!], n, [1])]).toEqual([input![n]!]);
  });
});

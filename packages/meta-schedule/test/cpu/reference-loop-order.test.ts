/**
 * The runner's reference loop order (reference-loop-order.ts): the innermost spatial loop moves
 * below the reductions, and the function computes what the workload computes.
 */
import { type PrimFunc, ops, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referenceLoopOrder } from "../../src/runner/reference-loop-order.js";
import { loopsOf, runOnCopies } from "./loop-helpers.js";

function loopOrder(func: PrimFunc): string[] {
  return loopsOf(func).map((l) => l.name);
}

describe("referenceLoopOrder", () => {
  it("matmul's i, j, k becomes i, k, j, conv2d's output columns move below its three reductions; an elementwise nest is left alone", () => {
    expect(loopOrder(referenceLoopOrder(ops.matmul(8, 4, 6).func))).toEqual(["i", "k", "j"]);
    const conv = ops.conv2d({ batch: 1, inChannels: 2, outChannels: 3, height: 5, width: 5, kernel: 3, padding: 1 }).func;
    expect(loopOrder(referenceLoopOrder(conv)).slice(-7)).toEqual(["n", "c", "i", "ric", "rkh", "rkw", "j"]);
    const add = ops.vectorAdd(16).func;
    expect(loopOrder(referenceLoopOrder(add))).toEqual(loopOrder(add));
  });

  it("property: matmul, conv2d (padding stage and all), pooling and gemm+ReLU+add compute what the workload computes", () => {
    const workloads: ((s: number) => PrimFunc)[] = [
      (s) => ops.matmul(s, s + 1, s + 2).func,
      (s) => ops.conv2d({ batch: 1, inChannels: 2, outChannels: 3, height: s + 2, width: s + 1, kernel: 3, padding: 1 }).func,
      (s) => ops.maxPool2d({ batch: 1, channels: 2, height: s + 2, width: s + 2, kernel: 2, stride: 2 }).func,
      (s) => ops.gemmReluAdd(s, s + 3, s + 1).func,
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: workloads.length - 1 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 1000 }), (w, size, seed) => {
        const func = workloads[w]!(size);
        const args = randomArgs(func, seed);
        const want = runOnCopies(func, args);
        const got = runOnCopies(referenceLoopOrder(func), args);
        got.forEach((a, k) => a.forEach((x, i) => expect(Math.abs(Number(x) - Number(want[k]![i]))).toBeLessThanOrEqual(1e-5)));
      }),
      { numRuns: 40 },
    );
  });
});

/**
 * Every operator run by the CPU executor on seeded random inputs and compared with the naive
 * reference implementation (small sizes).
 */
import { describe, expect, it } from "vitest";
import {
  type FloatArray,
  REFERENCE_OPERATORS as REF,
  avgPool2d,
  batchNorm,
  broadcastAdd,
  depthwiseConv2d,
  maxPool2d,
  reshape,
  stridedSlice,
  transpose,
} from "../../src/ops/index.js";
import { type OperatorBuild, type PrimFunc, conv2d, gemmReluAdd, matmul, batchMatmul, randomArgs, runPrimFunc, vectorAdd } from "../../src/index.js";

/** Runs `func` on random inputs; returns the inputs and the computed output (the last parameter). */
function run(func: PrimFunc, seed: number, opts?: { low?: number; high?: number }): { inputs: FloatArray[]; output: FloatArray } {
  const args = randomArgs(func, seed, opts) as FloatArray[];
  const output = args[args.length - 1]!;
  output.fill(Number.NaN); // every element must be written
  runPrimFunc(func, args);
  return { inputs: args.slice(0, -1), output };
}

function expectClose(actual: FloatArray, expected: FloatArray, tol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    const e = expected[i]!;
    // Written as a negation so that NaN (an element never written) fails too.
    if (!(Math.abs(actual[i]! - e) <= tol * Math.max(1, Math.abs(e)))) {
      expect.fail(`element ${i}: got ${actual[i]}, expected ${e}`);
    }
  }
}

function check(build: Pick<OperatorBuild, "func">, reference: (inputs: FloatArray[]) => FloatArray, seed = 1): void {
  const { inputs, output } = run(build.func, seed);
  expectClose(output, reference(inputs));
}

describe("operators on the CPU executor", () => {
  it("vectorAdd (float32 and float64)", () => {
    check(vectorAdd(17), ([a, b]) => REF.vectorAdd(a!, b!));
    check(vectorAdd(9, "float64"), ([a, b]) => REF.vectorAdd(a!, b!), 2);
  });

  it("broadcastAdd", () => {
    check(broadcastAdd([3, 1, 4], [5, 1]), ([a, b]) => REF.broadcastAdd([3, 1, 4], [5, 1], a!, b!));
    check(broadcastAdd([1, 4], [3, 4]), ([a, b]) => REF.broadcastAdd([1, 4], [3, 4], a!, b!), 3);
  });

  it("batchMatmul", () => {
    check(batchMatmul(3, 5, 7, 6), ([a, b]) => REF.batchMatmul(3, 5, 7, 6, a!, b!));
  });

  it("matmul", () => {
    check(matmul(5, 7, 6), ([a, b]) => REF.matmul(5, 7, 6, a!, b!));
  });

  it("conv2d with padding and stride, and without padding", () => {
    const cfg = { batch: 2, inChannels: 3, outChannels: 4, height: 7, width: 6, kernel: 3, padding: 1, stride: 2 } as const;
    check(conv2d(cfg), ([x, w]) => REF.conv2d(cfg, x!, w!));
    const plain = { batch: 1, inChannels: 2, outChannels: 2, height: 5, width: 5, kernel: [2, 3], stride: 1 } as const;
    check(conv2d(plain), ([x, w]) => REF.conv2d(plain, x!, w!), 4);
  });

  it("depthwiseConv2d", () => {
    const cfg = { batch: 1, channels: 3, height: 6, width: 5, kernel: 3, padding: [1, 2], stride: [1, 2] } as const;
    check(depthwiseConv2d(cfg), ([x, w]) => REF.depthwiseConv2d(cfg, x!, w!));
  });

  it("maxPool2d and avgPool2d", () => {
    const cfg = { batch: 2, channels: 2, height: 6, width: 7, kernel: 3, padding: 1, stride: 2 } as const;
    check(maxPool2d(cfg), ([x]) => REF.maxPool2d(cfg, x!));
    check(avgPool2d(cfg), ([x]) => REF.avgPool2d(cfg, x!), 5);
  });

  it("batchNorm", () => {
    const cfg = { channels: 3, height: 4, width: 5, eps: 1e-3 } as const;
    const { func } = batchNorm(cfg);
    const { inputs, output } = run(func, 6, { low: 0.1, high: 2 }); // keep the variance positive
    const [x, mean, variance, gamma, beta] = inputs;
    expectClose(output, REF.batchNorm(cfg, x!, mean!, variance!, gamma!, beta!));
  });

  it("transpose, reshape and slice", () => {
    check(transpose([2, 3, 4], [2, 0, 1]), ([x]) => REF.transpose([2, 3, 4], [2, 0, 1], x!));
    check(reshape([2, 3, 4], [4, 6]), ([x]) => REF.reshape([2, 3, 4], [4, 6], x!));
    check(stridedSlice([7, 6], [1, 0], [7, 5], [2, 2]), ([x]) => REF.slice([7, 6], [1, 0], [7, 5], [2, 2], x!));
  });

  it("gemmReluAdd", () => {
    check(gemmReluAdd(8, 6, 5), ([a, b, c]) => REF.gemmReluAdd(8, 6, 5, a!, b!, c!));
  });
});

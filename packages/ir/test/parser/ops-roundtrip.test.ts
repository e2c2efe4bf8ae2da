/**
 * Every operator of the library survives printing and parsing: `parse(print(f))` is structurally
 * equal to `f`, and printing is a fixed point.
 */
import { describe, expect, it } from "vitest";
import { type PrimFunc, conv2d, gemmReluAdd, matmul, parsePrimFunc, printTVMScript, structuralDiff, vectorAdd } from "../../src/index.js";
import { avgPool2d, batchNorm, broadcastAdd, depthwiseConv2d, maxPool2d, reshape, stridedSlice, transpose } from "../../src/ops/index.js";

const operators: Array<[string, () => PrimFunc]> = [
  ["vectorAdd", () => vectorAdd(64).func],
  ["broadcastAdd", () => broadcastAdd([4, 1, 3], [5, 1]).func],
  ["matmul", () => matmul(8, 6, 4).func],
  ["conv2d", () => conv2d({ batch: 1, inChannels: 2, outChannels: 3, height: 6, width: 6, kernel: 3, padding: 1, stride: 2 }).func],
  ["depthwiseConv2d", () => depthwiseConv2d({ batch: 1, channels: 2, height: 6, width: 6, kernel: 3, padding: 1, stride: 1 }).func],
  ["maxPool2d", () => maxPool2d({ batch: 1, channels: 2, height: 6, width: 6, kernel: 2, stride: 2, padding: 0 }).func],
  ["avgPool2d", () => avgPool2d({ batch: 1, channels: 2, height: 6, width: 6, kernel: 3, stride: 1, padding: 1 }).func],
  ["batchNorm", () => batchNorm({ channels: 3, height: 4, width: 4 }).func],
  ["transpose", () => transpose([2, 3, 4], [2, 0, 1]).func],
  ["reshape", () => reshape([4, 6], [3, 8]).func],
  ["stridedSlice", () => stridedSlice([8, 8], [1, 0], [7, 8], [2, 3]).func],
  ["gemmReluAdd", () => gemmReluAdd(32).func],
];

describe("operator library round trip through TVMScript", () => {
  it.each(operators)("%s", (_name, build) => {
    const func = build();
    const text = printTVMScript(func);
    const parsed = parsePrimFunc(text);
    expect(structuralDiff(parsed, func)?.message).toBeUndefined();
    expect(printTVMScript(parsed)).toBe(text);
  });
});

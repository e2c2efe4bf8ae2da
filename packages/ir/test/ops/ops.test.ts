import { describe, expect, it } from "vitest";
import {
  type Block,
  type BlockRealize,
  type PrimFunc,
  IRError,
  conv2d,
  forEachStmt,
  gemmReluAdd,
  matmul,
  paramBuffers,
  vectorAdd,
  verifyWellFormed,
} from "../../src/index.js";
import { avgPool2d, batchNorm, broadcastAdd, broadcastShape, depthwiseConv2d, maxPool2d, reshape, stridedSlice, transpose } from "../../src/ops/index.js";

function blocks(func: PrimFunc): Block[] {
  const out: Block[] = [];
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize" && s.block.name !== "root") out.push(s.block);
  });
  return out;
}

const shapeOf = (func: PrimFunc): number[][] => paramBuffers(func).map((b) => b.shape.map((s) => (s.kind === "IntImm" ? s.value : -1)));

const rootAllocs = (func: PrimFunc): string[] => (func.body as BlockRealize).block.allocBuffers.map((b) => b.name);

describe("operator library structure", () => {
  it("vectorAdd and matmul have the textbook shapes", () => {
    expect(shapeOf(vectorAdd(7).func)).toEqual([[7], [7], [7]]);
    const mm = matmul(2, 3, 4).func;
    expect(shapeOf(mm)).toEqual([
      [2, 4],
      [4, 3],
      [2, 3],
    ]);
    const [c] = blocks(mm);
    expect(c!.iterVars.map((iv) => iv.iterType)).toEqual(["spatial", "spatial", "reduce"]);
    expect(c!.init).toBeDefined();
    expect(c!.reads.map((r) => r.buffer.name)).toEqual(["A", "B"]);
  });

  it("broadcastAdd follows numpy broadcasting", () => {
    expect(broadcastShape([3, 1, 5], [4, 1])).toEqual([3, 4, 5]);
    expect(shapeOf(broadcastAdd([3, 1], [1, 4]).func)).toEqual([
      [3, 1],
      [1, 4],
      [3, 4],
    ]);
  });

  it("conv2d pads through an intermediate PaddedX compute", () => {
    const f = conv2d({ batch: 1, inChannels: 2, outChannels: 3, height: 5, width: 5, kernel: 3, padding: 1, stride: 2 }).func;
    expect(shapeOf(f)).toEqual([
      [1, 2, 5, 5],
      [3, 2, 3, 3],
      [1, 3, 3, 3],
    ]);
    expect(rootAllocs(f)).toEqual(["PaddedX"]);
    expect(blocks(f).map((b) => b.name)).toEqual(["PaddedX", "Y"]);
    const y = blocks(f)[1]!;
    expect(y.iterVars.map((iv) => iv.iterType)).toEqual(["spatial", "spatial", "spatial", "spatial", "reduce", "reduce", "reduce"]);
    const noPad = conv2d({ batch: 1, inChannels: 1, outChannels: 1, height: 4, width: 4, kernel: 2 }).func;
    expect(blocks(noPad).map((b) => b.name)).toEqual(["Y"]);
  });

  it("depthwise conv and pooling have the expected stages", () => {
    const dw = depthwiseConv2d({ batch: 2, channels: 3, height: 6, width: 6, kernel: [3, 2], padding: [1, 0] }).func;
    expect(shapeOf(dw)).toEqual([
      [2, 3, 6, 6],
      [3, 1, 3, 2],
      [2, 3, 6, 5],
    ]);
    const mp = maxPool2d({ batch: 1, channels: 2, height: 6, width: 6, kernel: 2, stride: 2, padding: 1 }).func;
    expect(blocks(mp).map((b) => b.name)).toEqual(["PaddedX", "PoolMax"]);
    const ap = avgPool2d({ batch: 1, channels: 2, height: 6, width: 6, kernel: 3, stride: 1 }).func;
    expect(blocks(ap).map((b) => b.name)).toEqual(["PoolSum", "PoolAvg"]);
    expect(rootAllocs(ap)).toEqual(["PoolSum"]);
  });

  it("batchNorm, transpose, reshape and slice have the expected signatures", () => {
    expect(shapeOf(batchNorm({ channels: 2, height: 3, width: 4 }).func)).toEqual([[2, 3, 4], [2], [2], [2], [2], [2, 3, 4]]);
    expect(shapeOf(transpose([2, 3, 4], [2, 0, 1]).func)).toEqual([
      [2, 3, 4],
      [4, 2, 3],
    ]);
    expect(shapeOf(reshape([2, 6], [3, 4]).func)).toEqual([
      [2, 6],
      [3, 4],
    ]);
    expect(shapeOf(stridedSlice([10, 8], [1, 0], [9, 8], [3, 2]).func)).toEqual([
      [10, 8],
      [3, 4],
    ]);
  });

  it("gemmReluAdd reproduces the course's workload structure", () => {
    const f = gemmReluAdd().func;
    expect(f.attrs).toEqual({ global_symbol: "gemm_relu_add" });
    expect(f.params.map((p) => p.name)).toEqual(["A", "B", "C", "D"]);
    expect(shapeOf(f)).toEqual([
      [2048, 2048],
      [2048, 2048],
      [2048, 2048],
      [2048, 2048],
    ]);
    expect(rootAllocs(f)).toEqual(["matmul", "relu"]);
    const [gemm, relu, add] = blocks(f);
    expect([gemm!.name, relu!.name, add!.name]).toEqual(["gemm", "relu", "add"]);
    expect(gemm!.iterVars.map((iv) => [iv.var.name, iv.iterType])).toEqual([
      ["vi", "spatial"],
      ["vj", "spatial"],
      ["vk", "reduce"],
    ]);
    expect(gemm!.init).toMatchObject({ kind: "BufferStore", value: { kind: "FloatImm", value: 0 } });
    expect(relu!.body).toMatchObject({ kind: "BufferStore", value: { kind: "Binary", op: "max" } });
    expect(add!.reads.map((r) => r.buffer.name)).toEqual(["relu", "C"]);
    expect(shapeOf(gemmReluAdd(64, 32, 16).func)).toEqual([
      [64, 16],
      [16, 32],
      [64, 32],
      [64, 32],
    ]);
  });
});

describe("operator library well-formedness", () => {
  const builds: Array<[string, () => PrimFunc]> = [
    ["vectorAdd", () => vectorAdd(8).func],
    ["broadcastAdd", () => broadcastAdd([2, 1], [3]).func],
    ["matmul", () => matmul(3, 4, 5).func],
    ["conv2d", () => conv2d({ batch: 1, inChannels: 2, outChannels: 2, height: 5, width: 5, kernel: 3, padding: 1 }).func],
    ["depthwiseConv2d", () => depthwiseConv2d({ batch: 1, channels: 2, height: 5, width: 5, kernel: 3, padding: 1 }).func],
    ["maxPool2d", () => maxPool2d({ batch: 1, channels: 2, height: 4, width: 4, kernel: 2, padding: 1 }).func],
    ["avgPool2d", () => avgPool2d({ batch: 1, channels: 2, height: 4, width: 4, kernel: 2 }).func],
    ["batchNorm", () => batchNorm({ channels: 2, height: 2, width: 2 }).func],
    ["transpose", () => transpose([2, 3], [1, 0]).func],
    ["reshape", () => reshape([6], [2, 3]).func],
    ["slice", () => stridedSlice([6], [1], [5], [2]).func],
    ["gemmReluAdd", () => gemmReluAdd(16).func],
  ];
  it.each(builds)("%s is well formed", (_name, build) => {
    expect(() => verifyWellFormed(build())).not.toThrow();
  });
});

describe("operator library errors", () => {
  it("rejects incompatible broadcasts", () => {
    expect(() => broadcastAdd([3, 4], [2, 4])).toThrow(/cannot be broadcast/);
  });

  it("rejects out-of-range and empty slices, and bad strides", () => {
    expect(() => stridedSlice([4, 4], [0, 0], [5, 4])).toThrow(/out of range/);
    expect(() => stridedSlice([4, 4], [2, 0], [2, 4])).toThrow(/out of range/);
    expect(() => stridedSlice([4, 4], [-1, 0], [2, 4])).toThrow(/out of range/);
    expect(() => stridedSlice([4, 4], [0, 0], [4, 4], [1, 0])).toThrow(/stride 0/);
    expect(() => stridedSlice([4, 4], [0], [4])).toThrow(/one entry per dimension/);
  });

  it("rejects bad permutations, reshapes, kernels and sizes", () => {
    expect(() => transpose([2, 3], [0, 0])).toThrow(/not a permutation/);
    expect(() => reshape([2, 3], [4, 2])).toThrow(/cannot reshape/);
    expect(() => conv2d({ batch: 1, inChannels: 1, outChannels: 1, height: 2, width: 2, kernel: 3 })).toThrow(/does not fit/);
    expect(() => matmul(0, 2, 2)).toThrow(IRError);
    expect(() => vectorAdd(3.5)).toThrow(/positive integer/);
    expect(() => vectorAdd(4, "int32" as never)).toThrow(/float32 or float64/);
    expect(() => maxPool2d({ batch: 1, channels: 1, height: 4, width: 4, kernel: 2, stride: 0 })).toThrow(/stride/);
  });
});

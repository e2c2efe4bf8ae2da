/**
 * TMA's tensor maps in the IR (tensor-map.ts): the swizzle's placement, the checks that name the
 * buffer, the boxes of a tile, and the maps a kernel body needs.
 */
import { describe, expect, it } from "vitest";
import { IRError, boxBytes, boxesOfTile, checkTensorMap, parsePrimFunc, swizzledOffset, tensorMapsOf, tmaDestinationAlignment } from "../../src/index.js";

const SPEC = { buffer: "B", dtype: "float16", shape: [64, 256], rowStride: 256, box: [64, 64], swizzle: 128 } as const;

describe("tensor maps", () => {
  it("the 128B swizzle moves 16-byte chunk c of 128-byte row r to chunk c ^ (r % 8); no swizzle moves nothing", () => {
    for (let r = 0; r < 16; r++)
      for (let c = 0; c < 8; c++) for (const b of [0, 5, 15]) expect(swizzledOffset(r * 128 + c * 16 + b, 128)).toBe(r * 128 + (c ^ (r % 8)) * 16 + b);
    expect(swizzledOffset(1234, 0)).toBe(1234);
    expect(tmaDestinationAlignment(128)).toBe(1024);
    expect(tmaDestinationAlignment(0)).toBe(128);
    expect(boxBytes(SPEC)).toBe(64 * 64 * 2);
  });

  it("refuses what the hardware cannot encode, naming the buffer", () => {
    expect(() => checkTensorMap(SPEC)).not.toThrow();
    expect(() => checkTensorMap({ ...SPEC, box: [64, 32] })).toThrow(
      /tensor map of buffer B: the 128-byte swizzle spans 128 bytes, but a box row \(32 float16\) is 64/,
    );
    expect(() => checkTensorMap({ ...SPEC, box: [300, 64] })).toThrow(/tensor map of buffer B: a box of 300 rows; TMA boxes are 1 to 256/);
    expect(() => checkTensorMap({ ...SPEC, swizzle: 0, box: [8, 4] })).toThrow(
      /tensor map of buffer B: a box row of 4 float16 is 8 bytes, not a multiple of 16/,
    );
    expect(() => checkTensorMap({ ...SPEC, swizzle: 96 as 128 })).toThrow(/tensor map of buffer B: swizzle 96 bytes/);
    expect(() => checkTensorMap({ ...SPEC, rowStride: 100 })).toThrow(/tensor map of buffer B: a row stride of 100 elements/);
  });

  it("the boxes of a tile, row-major; a box that does not divide the tile is refused naming the buffer", () => {
    expect(boxesOfTile("B", [64, 256], [64, 64])).toEqual([
      [0, 0],
      [0, 64],
      [0, 128],
      [0, 192],
    ]);
    expect(() => boxesOfTile("B", [64, 256], [64, 96])).toThrow(IRError);
    expect(() => boxesOfTile("B", [64, 256], [64, 96])).toThrow(/tensor map of buffer B: a 64×96 box does not divide the 64×256 tile/);
  });

  it("a kernel body's maps: one per loaded buffer, from its shape", () => {
    const func = parsePrimFunc(`@T.prim_func
def main(A: T.Buffer((32, 64), "float16"), B: T.Buffer((512,), "float16")):
    tile = T.allocate([512], "float16", "shared.dyn")
    bars = T.allocate([1], "uint64", "shared")
    T.ptx.cp_async_bulk_tensor_2d(T.tvm_access_ptr(T.type_annotation("float16"), tile, 0, 512, 2), A.data, 64, 8, 128, 0, 8, T.tvm_access_ptr(T.type_annotation("uint64"), bars, 0, 1, 3))
`);
    const buffers = [...func.bufferMap.values()];
    const maps = tensorMapsOf(func.body, buffers);
    expect([...maps.values()]).toEqual([{ buffer: "A", dtype: "float16", shape: [32, 64], rowStride: 64, box: [8, 64], swizzle: 128 }]);
    expect(() => tensorMapsOf(func.body, buffers.slice(1))).toThrow(/argument 1 must be the data of a global buffer parameter \(e\.g\. A\.data\), got A/);
  });
});

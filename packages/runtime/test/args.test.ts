import { describe, expect, it } from "vitest";
import { encodeTensorMap, f32, f64, i64, launchDims, packArgs, parseLaunchMetadata, type LaunchMetadata } from "@tessera/runtime";

const buf = (ptr: bigint) => ({ ptr });

describe("packArgs", () => {
  it("aligns each argument naturally and writes little-endian values", () => {
    const p = packArgs([buf(0x1000n), 7, f64(1.5), f32(2.5), i64(-3n)], undefined, "k");
    expect([...p.offsets]).toEqual([0, 8, 16, 24, 32]);
    const v = new DataView(p.bytes.buffer);
    expect(v.getBigUint64(0, true)).toBe(0x1000n);
    expect(v.getInt32(8, true)).toBe(7);
    expect(v.getFloat64(16, true)).toBe(1.5);
    expect(v.getFloat32(24, true)).toBe(2.5);
    expect(v.getBigInt64(32, true)).toBe(-3n);
  });

  it("takes scalar types from metadata and checks arity and kinds", () => {
    const params: LaunchMetadata["params"] = [
      { name: "A", kind: "buffer", dtype: "float32" },
      { name: "alpha", kind: "scalar", dtype: "float32" },
      { name: "n", kind: "scalar", dtype: "int64" },
    ];
    const p = packArgs([buf(16n), 0.5, 9], params, "k");
    const v = new DataView(p.bytes.buffer);
    expect(v.getFloat32(p.offsets[1] as number, true)).toBe(0.5);
    expect(v.getBigInt64(p.offsets[2] as number, true)).toBe(9n);
    expect(() => packArgs([buf(16n), 0.5], params, "k")).toThrow(/takes 3 arguments/);
    expect(() => packArgs([1, 0.5, 9], params, "k")).toThrow(/expected a device buffer/);
    expect(() => packArgs([buf(1n), f64(1), 9], params, "k")).toThrow(/expected float32, got float64/);
  });

  it("passes a tensor map by value: its 128 bytes at a 64-byte aligned offset after the pointer", () => {
    const map = Uint8Array.from({ length: 128 }, (_, i) => i + 1);
    const params: LaunchMetadata["params"] = [
      { name: "A", kind: "buffer", dtype: "float16" },
      { name: "A_tmap", kind: "tensor_map", dtype: "float16", tensorMap: { shape: [64, 64], rowStride: 64, box: [64, 64], swizzle: 128 } },
      { name: "n", kind: "scalar", dtype: "int32" },
    ];
    const p = packArgs([buf(0x2000n), { tensorMap: map }, 5], params, "k");
    expect([...p.offsets]).toEqual([0, 64, 192]);
    expect([...p.bytes.subarray(64, 192)]).toEqual([...map]);
    expect(new DataView(p.bytes.buffer).getInt32(192, true)).toBe(5);
    expect(() => packArgs([buf(0x2000n), buf(1n), 5], params, "k")).toThrow(/argument 1 \(A_tmap\): expected a tensor map/);
    expect(() => packArgs([buf(0x2000n), { tensorMap: map.subarray(0, 64) }, 5], params, "k")).toThrow(/a tensor map is 128 bytes, got 64/);
    expect(() => packArgs([{ tensorMap: map }, { tensorMap: map }, 5], params, "k")).toThrow(/argument 0 \(A\): expected a buffer, got a tensor map/);
  });

  it("refuses a tensor map the hardware cannot encode before asking the driver, naming the buffer", () => {
    const map = { shape: [64, 64], rowStride: 64, box: [8, 64], swizzle: 128 } as const;
    expect(() => encodeTensorMap(0x1000n, "float16", { ...map, box: [8, 32] }, "A", "k")).toThrow(
      /tensor map of buffer A: the 128-byte swizzle spans 128 bytes, but a box row \(32 float16\) is 64/,
    );
    expect(() => encodeTensorMap(0x1000n, "float16", { ...map, rowStride: 60 }, "A", "k")).toThrow(/tensor map of buffer A: a row stride of 60 elements/);
    expect(() => encodeTensorMap(0x1000n, "int8", { ...map, box: [8, 128] }, "A", "k")).toThrow(/tensor map of buffer A: TMA does not describe int8 elements/);
    expect(() => encodeTensorMap(0x1008n, "float16", map, "A", "k")).toThrow(/tensor map of buffer A: the array's address 4104 is not 16-byte aligned/);
  });

  it("refuses an untyped non-integer", () => {
    expect(() => packArgs([0.5], undefined, "k")).toThrow(/needs a type/);
  });
});

describe("launch metadata schema", () => {
  const good = {
    name: "gemm_relu_add",
    grid: [128, 128, 1],
    block: [16, 16, 1],
    dynamicSharedBytes: 0,
    params: [
      { name: "A", kind: "buffer", dtype: "float32" },
      { name: "n", kind: "scalar", dtype: "int32" },
    ],
  };
  it("accepts valid metadata", () => {
    expect(parseLaunchMetadata(good).grid).toEqual([128, 128, 1]);
  });
  it("rejects bad dims, kinds, dtypes and oversize blocks", () => {
    expect(() => parseLaunchMetadata({ ...good, grid: [0, 1, 1] })).toThrow();
    expect(() => parseLaunchMetadata({ ...good, block: [32, 32, 2] })).toThrow(/1024/);
    expect(() => parseLaunchMetadata({ ...good, params: [{ name: "x", kind: "tensor", dtype: "float32" }] })).toThrow();
    expect(() => parseLaunchMetadata({ ...good, params: [{ name: "x", kind: "scalar", dtype: "float128" }] })).toThrow();
    const tensorMap = { shape: [64, 64], rowStride: 64, box: [64, 64], swizzle: 128 };
    expect(parseLaunchMetadata({ ...good, params: [{ name: "A_tmap", kind: "tensor_map", dtype: "float16", tensorMap }] }).params[0]?.tensorMap).toEqual(
      tensorMap,
    );
    expect(() =>
      parseLaunchMetadata({ ...good, params: [{ name: "A_tmap", kind: "tensor_map", dtype: "float16", tensorMap: { ...tensorMap, swizzle: 96 } }] }),
    ).toThrow();
  });
  it("launchDims fills missing dimensions with 1", () => {
    expect([...launchDims({ grid: 4, block: [16, 16] })]).toEqual([4, 1, 1, 16, 16, 1, 0]);
    expect(() => launchDims({ grid: 0, block: 1 })).toThrow(/grid/);
  });
});

import { describe, expect, it } from "vitest";
import { f32, f64, i64, launchDims, packArgs, parseLaunchMetadata, type LaunchMetadata } from "@tessera/runtime";

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
  });
  it("launchDims fills missing dimensions with 1", () => {
    expect([...launchDims({ grid: 4, block: [16, 16] })]).toEqual([4, 1, 1, 16, 16, 1, 0]);
    expect(() => launchDims({ grid: 0, block: 1 })).toThrow(/grid/);
  });
});

import { describe, expect, it } from "vitest";
import { bytesOf, dtype, dtypeInfo, elementType, intRange, isFloat, isValidDType, lanesOf, withLanes } from "../../src/dtype.js";
import { IRError } from "../../src/errors.js";

describe("dtype", () => {
  it("parses every scalar type and vector lanes", () => {
    for (const t of ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "handle"]) {
      expect(isValidDType(t)).toBe(true);
      expect(dtype(t)).toBe(t);
    }
    expect(dtypeInfo("float32x4")).toEqual({ code: "float", bits: 32, lanes: 4 });
    expect(lanesOf("int8x16")).toBe(16);
    expect(elementType("float32x4")).toBe("float32");
    expect(withLanes("float32", 4)).toBe("float32x4");
    expect(dtype("bool1")).toBe("bool");
  });

  it("rejects unknown types with a message naming the text", () => {
    for (const t of ["float8", "int7", "float", "f32", "int32x0", "boolean"]) {
      expect(isValidDType(t)).toBe(false);
      expect(() => dtypeInfo(t)).toThrow(IRError);
      expect(() => dtypeInfo(t)).toThrow(`unknown dtype "${t}"`);
    }
  });

  it("knows sizes and integer ranges", () => {
    expect(bytesOf("float32x4")).toBe(16);
    expect(bytesOf("bool")).toBe(1);
    expect(bytesOf("float16")).toBe(2);
    expect(intRange("int8")).toEqual({ min: -128, max: 127 });
    expect(intRange("uint16")).toEqual({ min: 0, max: 65535 });
    expect(() => intRange("float32")).toThrow(IRError);
  });
});

describe("TVM's narrow dtypes", () => {
  it("bfloat16 and the float8/6/4 formats are floats of their own code and bit width", () => {
    expect(dtypeInfo("bfloat16")).toEqual({ code: "bfloat", bits: 16, lanes: 1 });
    expect(dtypeInfo("float8_e4m3fnx4")).toEqual({ code: "float8_e4m3fn", bits: 8, lanes: 4 });
    expect(dtypeInfo("float6_e3m2fn").bits).toBe(6);
    expect(dtypeInfo("float4_e2m1fnx2")).toEqual({ code: "float4_e2m1fn", bits: 4, lanes: 2 });
    for (const t of ["bfloat16", "bfloat16x8", "float8_e5m2", "float8_e4m3fnx2", "float4_e2m1fn"]) {
      expect(isFloat(t)).toBe(true);
      expect(dtype(t)).toBe(t);
    }
    expect(elementType("float8_e4m3fnx4")).toBe("float8_e4m3fn");
    expect(withLanes("bfloat16", 2)).toBe("bfloat16x2");
  });

  it("sub-byte integers have their bit width and range", () => {
    expect(dtypeInfo("int4")).toEqual({ code: "int", bits: 4, lanes: 1 });
    expect(intRange("int4")).toEqual({ min: -8, max: 7 });
    expect(intRange("uint1")).toEqual({ min: 0, max: 1 });
  });

  it("rejects made-up formats", () => {
    for (const t of ["bfloat32", "float8_e9m9", "float8_e4m3fnx0", "float4", "int3"]) expect(isValidDType(t)).toBe(false);
  });
});

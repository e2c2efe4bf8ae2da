import { describe, expect, it } from "vitest";
import { bytesOf, dtype, dtypeInfo, elementType, intRange, isValidDType, lanesOf, withLanes } from "../../src/dtype.js";
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

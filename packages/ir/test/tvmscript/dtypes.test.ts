/**
 * TVM's narrow dtypes in TVMScript: bfloat16, the float8/6/4 formats and sub-byte integers parse,
 * print and read back in both dialects; the CPU executor refuses them by name
 * (except bfloat16, which it executes).
 */
import { describe, expect, it } from "vitest";
import { parsePrimFunc } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { compilePrimFunc } from "../../src/exec/index.js";
import { errorOf } from "./helpers.js";

const NARROW = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float6_e2m3fn", "float4_e2m1fn", "int4", "uint4", "int1"];

function script(dt: string, lanes = ""): string {
  return [
    "@T.prim_func",
    `def f(A: T.Buffer((8,), "${dt}${lanes}"), B: T.Buffer((8,), "float32")):`,
    "    for i in range(8):",
    `        B[i] = T.Cast("float32", A[i])`,
  ].join("\n");
}

describe("narrow dtypes in TVMScript", () => {
  for (const dt of NARROW) {
    for (const dialect of ["course", "tvm"] as const) {
      it(`${dt} buffers round-trip printed as ${dialect}`, () => {
        const f = parsePrimFunc(script(dt));
        expect([...f.bufferMap.values()][0]!.dtype).toBe(dt);
        const printed = printTVMScript(f, { dialect });
        expect(printed).toContain(`"${dt}"`);
        const again = parsePrimFunc(printed);
        expect(structuralEqual(again, f), printed).toBe(true);
        expect(printTVMScript(again, { dialect })).toBe(printed);
      });
    }
  }

  it("vector lanes of a narrow float format keep their name", () => {
    const f = parsePrimFunc(["@T.prim_func", 'def f(A: T.Buffer((8,), "float8_e4m3fnx4")):', "    A[0] = A[1]"].join("\n"));
    expect([...f.bufferMap.values()][0]!.dtype).toBe("float8_e4m3fnx4");
    expect(structuralEqual(parsePrimFunc(printTVMScript(f, { dialect: "tvm" })), f)).toBe(true);
  });

  it("typed constants of bfloat16 and float8 are float immediates that round-trip", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((2,), "bfloat16"), B: T.Buffer((2,), "float8_e5m2")):',
      "    A[0] = T.bfloat16(1.5)",
      "    B[1] = T.float8_e5m2(2)",
    ].join("\n");
    const f = parsePrimFunc(text);
    const printed = printTVMScript(f);
    expect(structuralEqual(parsePrimFunc(printed), f), printed).toBe(true);
  });

  it('"float", "int" and "uint" are TVM\'s short spellings of the 32-bit types', () => {
    const f = parsePrimFunc(script("float"));
    expect([...f.bufferMap.values()][0]!.dtype).toBe("float32");
    expect(printTVMScript(f)).not.toContain('"float"');
  });

  it("unknown formats are refused with the name and position", () => {
    expect(errorOf(script("float8_e9m9"))).toMatchObject({ reason: 'unknown dtype "float8_e9m9"', line: 2 });
    expect(errorOf(script("int7")).reason).toBe('unknown dtype "int7"');
  });

  it("the CPU executor refuses them by dtype (bfloat16 executes)", () => {
    expect(() => compilePrimFunc(parsePrimFunc(script("float8_e5m2"))).run([new Float32Array(8), new Float32Array(8)])).toThrow(/float8_e5m2/);
    expect(() => compilePrimFunc(parsePrimFunc(script("int4"))).run([new Int8Array(8), new Float32Array(8)])).toThrow(/int4/);
  });
});

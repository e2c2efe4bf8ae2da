/** The C symbol of a function: `main` and other names C reserves are mangled as TVM does (regression: `main` was refused). */
import { type PrimFunc, ops } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CLoweringError, buildC } from "../../src/index.js";
import { cSymbolOf } from "../../src/c/symbol.js";

function named(func: PrimFunc, globalSymbol: string): PrimFunc {
  return { ...func, attrs: { ...func.attrs, global_symbol: globalSymbol } };
}

describe("C symbols", () => {
  it("a function named main becomes tvmgen_default_main, and the header comment says why", () => {
    const func = named(ops.vectorAdd(16).func, "main");
    const m = buildC(func);
    expect(m.name).toBe("main");
    expect(m.symbol).toBe("tvmgen_default_main");
    expect(m.packedSymbol).toBe("tvmgen_default_main_packed");
    expect(m.source).toContain("TESSERA_EXPORT void tvmgen_default_main(float* restrict A");
    expect(m.source).toContain("TESSERA_EXPORT int32_t tvmgen_default_main_packed(void** args)");
    expect(m.source).not.toMatch(/\bvoid main\(/);
    expect(m.source.split("\n").slice(0, 2).join("\n")).toMatch(
      /from function main\.\n\/\/ The C function is tvmgen_default_main \(entry point tvmgen_default_main_packed\), not main: "main" is the C program's entry point/,
    );
  });

  it("plain identifiers keep their name; reserved words are mangled; non-identifiers are still refused", () => {
    expect(cSymbolOf("vector_add")).toEqual({ symbol: "vector_add" });
    expect(cSymbolOf("int")?.symbol).toBe("tvmgen_default_int");
    expect(cSymbolOf("a.b")).toBeUndefined();
    expect(() => buildC(named(ops.vectorAdd(16).func, "a.b"))).toThrow(CLoweringError);
  });
});

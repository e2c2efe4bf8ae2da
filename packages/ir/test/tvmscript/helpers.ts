import { expect } from "vitest";
import { TVMScriptSyntaxError, parsePrimFunc } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import type { PrimFunc } from "../../src/func.js";

/** The reason and position of the syntax error `text` raises (failing the test when it parses). */
export function errorOf(text: string): { reason: string; line: number; column: number } {
  try {
    parsePrimFunc(text);
  } catch (err) {
    if (err instanceof TVMScriptSyntaxError) return { reason: err.reason, line: err.line, column: err.column };
    throw err;
  }
  throw new Error("expected a syntax error");
}

/** Parses `text`, and checks that printing it in either dialect and parsing the print gives it back, printed the same. */
export function roundTrip(text: string): { f: PrimFunc; printed: string } {
  const f = parsePrimFunc(text);
  for (const dialect of ["course", "tvm"] as const) {
    const printed = printTVMScript(f, { dialect });
    const again = parsePrimFunc(printed);
    expect(structuralEqual(again, f), printed).toBe(true);
    expect(printTVMScript(again, { dialect })).toBe(printed);
  }
  return { f, printed: printTVMScript(f) };
}

import { TVMScriptSyntaxError, parsePrimFunc } from "../../src/parser/index.js";

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

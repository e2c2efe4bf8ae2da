import { describe, expect, it } from "vitest";
import { tokenize } from "../../src/parser/lexer.js";
import { ParseFailure } from "../../src/parser/errors.js";

const kinds = (text: string): string[] => tokenize(text).map((t) => (t.kind === "name" || t.kind === "op" ? t.text : t.kind));

describe("TVMScript lexer", () => {
  it("emits INDENT and DEDENT around nested blocks and skips comments and blank lines", () => {
    const text = "def f():\n    # comment\n\n    x = 1\n    if x:\n        y\nz\n";
    expect(kinds(text)).toEqual([
      "def",
      "f",
      "(",
      ")",
      ":",
      "newline",
      "indent",
      "x",
      "=",
      "number",
      "newline",
      "if",
      "x",
      ":",
      "newline",
      "indent",
      "y",
      "newline",
      "dedent",
      "dedent",
      "z",
      "newline",
      "eof",
    ]);
  });

  it("joins lines inside brackets and after a backslash", () => {
    expect(kinds("f(a,\n  b)\nx = 1 + \\\n  2\n")).toEqual(["f", "(", "a", ",", "b", ")", "newline", "x", "=", "number", "+", "number", "newline", "eof"]);
  });

  it("reads numbers with their int/float nature, and both string quotes with escapes", () => {
    const toks = tokenize(`1 2.0 1e-3 0x10 'a\\'b' "c\\n"`);
    expect(toks.slice(0, 4).map((t) => [t.value, t.isFloat])).toEqual([
      [1, false],
      [2, true],
      [0.001, true],
      [16, false],
    ]);
    expect(toks.slice(4, 6).map((t) => t.text)).toEqual(["a'b", "c\n"]);
  });

  it("records 1-based line and column positions", () => {
    const toks = tokenize("a\n  bb = c\n".replace("  bb", "bb"));
    expect(toks.find((t) => t.text === "bb")?.pos).toEqual({ line: 2, column: 1 });
    expect(toks.find((t) => t.text === "c")?.pos).toEqual({ line: 2, column: 6 });
  });

  it("rejects an unterminated string at its opening quote", () => {
    expect(() => tokenize('x = "abc\n')).toThrow(ParseFailure);
    try {
      tokenize('x = "abc\n');
    } catch (e) {
      expect((e as ParseFailure).pos).toEqual({ line: 1, column: 5 });
      expect((e as ParseFailure).reason).toBe("unterminated string literal");
    }
  });

  it("rejects dedents that match no outer level", () => {
    expect(() => tokenize("if a:\n    b\n  c\n")).toThrow(/does not match any outer indentation level/);
  });

  it("rejects mismatched and unclosed brackets", () => {
    expect(() => tokenize("f(a]")).toThrow(/closing "]" does not match the opening "\("/);
    expect(() => tokenize("f(a,\n b\n")).toThrow(/unclosed "\("/);
  });
});

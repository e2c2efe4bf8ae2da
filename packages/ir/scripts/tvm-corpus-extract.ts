/**
 * Cuts TVMScript out of Python test files (for `tvm-corpus-parse.ts`): every decorated
 * `@T.prim_func` function and every `@I.ir_module` class, dedented, with where it came from.
 */
import { type ClosureValue, closureOf } from "./tvm-corpus-closure.js";

export interface Case {
  /** `file.py:line name` */
  readonly where: string;
  readonly text: string;
  /** Inside `with pytest.raises(...)`: TVM's parser rejects it, and so should ours. */
  readonly expectError: boolean;
  /** Simple values of the Python names around it (see `tvm-corpus-closure.ts`). */
  readonly closure: Readonly<Record<string, ClosureValue>>;
}

const UNDERLINE = /^\s*\^+\s*$/m;
const TRIPLE_QUOTE = /"{3}|'{3}/;
const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string): boolean => line.trim() === "" || line.trim().startsWith("#");

/**
 * Cuts the decorated definitions out of one Python file: each `@T.prim_func` def that is not
 * inside an `@I.ir_module` class, and each such class whole. Text is dedented to column 0.
 */
export function extractCases(file: string, source: string): Case[] {
  const lines = source.split("\n");
  const cases: Case[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const trimmed = line.trim();
    const isFunc = /^@(T|tvm\.script\.tir)\.prim_func\b/.test(trimmed);
    const isModule = /^@(I|tvm\.script\.ir|tvm\.script)\.ir_module\b|^@ir_module\b/.test(trimmed);
    if (!isFunc && !isModule) {
      i++;
      continue;
    }
    const indent = indentOf(line);
    // Further decorators, then the def/class line (which may span lines through open brackets).
    let j = i;
    while (j < lines.length && lines[j]!.trim().startsWith("@")) j++;
    if (j >= lines.length) break;
    const header = lines[j]!.trim();
    const name = /^(?:def|class)\s+(\w+)/.exec(header)?.[1] ?? "?";
    let depth = 0;
    for (;;) {
      for (const ch of lines[j]!) {
        if ("([{".includes(ch)) depth++;
        else if (")]}".includes(ch)) depth--;
      }
      j++;
      if (depth <= 0 || j >= lines.length) break;
    }
    // The body: every following line indented deeper than the decorator (blank lines included).
    // Script quoted in a Python string (a printer test's expected text) ends at its closing quotes.
    let end = j;
    let closingQuote: string | undefined;
    const quoted = insideTripleQuotes(lines, i);
    for (let k = j; k < lines.length; k++) {
      if (isBlank(lines[k]!)) continue;
      const quote = quoted ? TRIPLE_QUOTE.exec(lines[k]!) : null;
      if (quote !== null && indentOf(lines[k]!) <= indent) break;
      if (quote !== null) {
        closingQuote = lines[k]!.slice(0, quote.index);
        end = k;
        break;
      }
      if (indentOf(lines[k]!) <= indent) break;
      end = k + 1;
    }
    const body = lines.slice(i, end);
    if (closingQuote !== undefined && closingQuote.trim() !== "") body.push(closingQuote);
    const text = body.map((l) => (l.length >= indent ? l.slice(indent) : l.trimStart())).join("\n");
    // A printer test's expected output with `^^^^` underlines is not a script: left out.
    if (UNDERLINE.test(text)) {
      i = end;
      continue;
    }
    // A quoted script sees the names around its string (the script itself starts at column 0).
    const opening = quoted ? openingQuote(lines, i) : undefined;
    const closure = closureOf(lines, opening?.line ?? i);
    cases.push({
      where: `${file.split("/").pop()}:${i + 1} ${name}`,
      text: `${opening?.formatted === true ? formatFString(text, closure) : text}\n`,
      expectError: insidePytestRaises(lines, i),
      closure,
    });
    i = end;
  }
  return cases;
}

/** Whether line `at` lies inside a triple-quoted string (an odd number of triple quotes before it). */
function insideTripleQuotes(lines: readonly string[], at: number): boolean {
  let count = 0;
  for (let k = 0; k < at; k++) count += lines[k]!.match(/"{3}|'{3}/g)?.length ?? 0;
  return count % 2 === 1;
}

/** The line that opens the triple-quoted string around line `at`, and whether it is an f-string (`f"""`). */
function openingQuote(lines: readonly string[], at: number): { line: number; formatted: boolean } | undefined {
  for (let k = at - 1; k >= 0; k--) {
    const quote = /(\w*)(?:"{3}|'{3})/.exec(lines[k]!);
    if (quote !== null) return { line: k, formatted: /^[rR]?[fF][rR]?$/.test(quote[1]!) };
  }
  return undefined;
}

/**
 * The text of an f-string script as Python formats it: `{name}` replaced by the closure's string or
 * number, `{{`/`}}` by a brace. A placeholder the closure has no such value for stays as written.
 */
function formatFString(text: string, closure: Readonly<Record<string, ClosureValue>>): string {
  return text.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name: string | undefined) => {
    if (name === undefined) return whole[0]!;
    const v = closure[name];
    return typeof v === "string" || typeof v === "number" ? String(v) : whole;
  });
}

/** Whether the statement that encloses line `at` (the nearest less indented line above it) is `with pytest.raises(...)`. */
function insidePytestRaises(lines: readonly string[], at: number): boolean {
  const indent = indentOf(lines[at]!);
  for (let k = at - 1; k >= 0; k--) {
    if (isBlank(lines[k]!) || indentOf(lines[k]!) >= indent) continue;
    return /^\s*with pytest\.raises\b/.test(lines[k]!);
  }
  return false;
}

/** Blanks out names (but not `T.*` functions) and numbers so that failures with one cause group together. */
export function messageKey(message: string): string {
  return message
    .replace(/^.*?\berror: /, "")
    .replace(/"([^"]*)"/g, (quoted, inner: string) => (inner.startsWith("T.") ? quoted : '"…"'))
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b\d+\b/g, "N");
}

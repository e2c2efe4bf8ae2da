/**
 * Tokens of a trace written as TypeScript (what `Trace.show()` prints): identifiers, numbers,
 * strings, punctuation and `=>`. Comments and whitespace are skipped.
 */
import { TraceTextError } from "./errors.js";

export type TokenKind = "ident" | "number" | "string" | "punct" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** The identifier or punctuation; a string's value; a number's source text. */
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

const PUNCTUATION = ["=>", "(", ")", "[", "]", "{", "}", ",", ";", ":", ".", "=", "-", "<", ">", "|", "?"];

/** A text trace longer than this is refused before it costs anything (a real one is a few KB). */
export const MAX_TRACE_TEXT_CHARS = 4 * 1024 * 1024;

export function tokenize(text: string): Token[] {
  if (text.length > MAX_TRACE_TEXT_CHARS)
    throw new TraceTextError(1, 1, `the trace is ${text.length} characters long; at most ${MAX_TRACE_TEXT_CHARS} are read`);
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): { line: number; column: number } => ({ line, column: i - lineStart + 1 });
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (text.startsWith("//", i)) {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (text.startsWith("/*", i)) {
      const start = here();
      const end = text.indexOf("*/", i + 2);
      if (end === -1) throw new TraceTextError(start.line, start.column, "unterminated /* comment");
      for (let k = i; k < end; k++) {
        if (text[k] === "\n") {
          line++;
          lineStart = k + 1;
        }
      }
      i = end + 2;
      continue;
    }
    const pos = here();
    const ident = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 256));
    if (ident !== null) {
      tokens.push({ kind: "ident", text: ident[0], ...pos });
      i += ident[0].length;
      continue;
    }
    const number = /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (number !== null) {
      tokens.push({ kind: "number", text: number[0], ...pos });
      i += number[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const { value, end } = readString(text, i, pos);
      tokens.push({ kind: "string", text: value, ...pos });
      i = end;
      continue;
    }
    const punct = PUNCTUATION.find((p) => text.startsWith(p, i));
    if (punct !== undefined) {
      tokens.push({ kind: "punct", text: punct, ...pos });
      i += punct.length;
      continue;
    }
    throw new TraceTextError(pos.line, pos.column, `unexpected character ${JSON.stringify(c)}`);
  }
  tokens.push({ kind: "eof", text: "", line, column: i - lineStart + 1 });
  return tokens;
}

/** A quoted string on one line; its escapes are JSON's. */
function readString(text: string, start: number, pos: { line: number; column: number }): { value: string; end: number } {
  const quote = text[start]!;
  let i = start + 1;
  while (i < text.length && text[i] !== quote && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
  if (i >= text.length || text[i] !== quote) throw new TraceTextError(pos.line, pos.column, "unterminated string");
  const body = text.slice(start + 1, i);
  const json = quote === '"' ? body : body.replace(/\\'/g, "'").replace(/"/g, '\\"');
  try {
    return { value: JSON.parse(`"${json}"`) as string, end: i + 1 };
  } catch {
    throw new TraceTextError(pos.line, pos.column, "a string with an invalid escape");
  }
}

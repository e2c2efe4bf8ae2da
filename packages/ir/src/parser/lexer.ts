/**
 * Tokenizer for the Python subset TVMScript is written in. Produces Python-style NEWLINE, INDENT
 * and DEDENT tokens; newlines inside brackets and after a backslash are joined, as in Python.
 */
import { type SourcePos, fail } from "./errors.js";

export type TokenKind = "name" | "number" | "string" | "op" | "newline" | "indent" | "dedent" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** The identifier, operator text or (decoded) string contents. */
  readonly text: string;
  /** For numbers: the value, and whether it was written as a float (`2.0`, `1e3`). */
  readonly value?: number;
  readonly isFloat?: boolean;
  readonly pos: SourcePos;
}

/** Longest operators first, so that `//=` wins over `//` and `/`. */
const OPERATORS = [
  "//=",
  "**=",
  ">>=",
  "<<=",
  "->",
  "**",
  "//",
  "<<",
  ">>",
  "<=",
  ">=",
  "==",
  "!=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ".",
  ";",
  "@",
  "=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "<",
  ">",
  "~",
  "&",
  "|",
  "^",
];

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = new Set([")", "]", "}"]);

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"' };

export function tokenize(text: string): Token[] {
  return new Lexer(text).run();
}

class Lexer {
  private readonly tokens: Token[] = [];
  private readonly indents: number[] = [0];
  private readonly brackets: { char: string; pos: SourcePos }[] = [];
  private i = 0;
  private line = 1;
  private lineStart = 0;
  private atLineStart = true;

  constructor(private readonly src: string) {}

  run(): Token[] {
    while (this.i < this.src.length) {
      if (this.atLineStart && this.brackets.length === 0) {
        this.readIndentation();
        continue;
      }
      const c = this.src[this.i]!;
      if (c === " " || c === "\t" || c === "\f") {
        this.i++;
      } else if (c === "#") {
        this.skipComment();
      } else if (c === "\n" || c === "\r") {
        this.newline();
      } else if (c === "\\") {
        this.lineContinuation();
      } else if (/[A-Za-z_]/.test(c)) {
        this.readName();
      } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(this.src[this.i + 1] ?? ""))) {
        this.readNumber();
      } else if (c === '"' || c === "'") {
        this.readString();
      } else {
        this.readOperator();
      }
    }
    const end = this.pos();
    if (this.brackets.length > 0) {
      const open = this.brackets[this.brackets.length - 1]!;
      fail(`unclosed "${open.char}": expected "${OPENERS[open.char]}" before the end of the input`, open.pos);
    }
    if (this.tokens.length > 0 && this.last()?.kind !== "newline") this.push("newline", "", end);
    while (this.indents.length > 1) {
      this.indents.pop();
      this.push("dedent", "", end);
    }
    this.push("eof", "", end);
    return this.tokens;
  }

  private pos(): SourcePos {
    return { line: this.line, column: this.i - this.lineStart + 1 };
  }

  private last(): Token | undefined {
    return this.tokens[this.tokens.length - 1];
  }

  private push(kind: TokenKind, text: string, pos: SourcePos, extra: Partial<Token> = {}): void {
    this.tokens.push({ kind, text, pos, ...extra });
  }

  /** Measures the indentation of a logical line and emits INDENT/DEDENT; blank lines are skipped. */
  private readIndentation(): void {
    let width = 0;
    while (this.i < this.src.length) {
      const c = this.src[this.i]!;
      if (c === " ") width++;
      else if (c === "\t") width = Math.floor(width / 8) * 8 + 8;
      else if (c === "\f") width = 0;
      else break;
      this.i++;
    }
    const c = this.src[this.i];
    if (c === undefined) return;
    if (c === "#" || c === "\n" || c === "\r") {
      if (c === "#") this.skipComment();
      if (this.i < this.src.length) this.consumeLineBreak();
      return;
    }
    this.atLineStart = false;
    const pos = this.pos();
    const current = this.indents[this.indents.length - 1]!;
    if (width > current) {
      this.indents.push(width);
      this.push("indent", "", pos);
    } else if (width < current) {
      while (this.indents[this.indents.length - 1]! > width) {
        this.indents.pop();
        this.push("dedent", "", pos);
      }
      if (this.indents[this.indents.length - 1] !== width) {
        fail("bad indentation: this line does not match any outer indentation level", pos);
      }
    }
  }

  private skipComment(): void {
    while (this.i < this.src.length && this.src[this.i] !== "\n" && this.src[this.i] !== "\r") this.i++;
  }

  private consumeLineBreak(): void {
    if (this.src[this.i] === "\r" && this.src[this.i + 1] === "\n") this.i++;
    this.i++;
    this.line++;
    this.lineStart = this.i;
  }

  private newline(): void {
    const pos = this.pos();
    this.consumeLineBreak();
    if (this.brackets.length > 0) return;
    const prev = this.last();
    if (prev !== undefined && prev.kind !== "newline" && prev.kind !== "indent" && prev.kind !== "dedent") {
      this.push("newline", "", pos);
    }
    this.atLineStart = true;
  }

  private lineContinuation(): void {
    const pos = this.pos();
    this.i++;
    const c = this.src[this.i];
    if (c !== "\n" && c !== "\r") fail('unexpected character after line continuation "\\"', pos);
    this.consumeLineBreak();
  }

  private readName(): void {
    const pos = this.pos();
    const start = this.i;
    while (this.i < this.src.length && /[A-Za-z0-9_]/.test(this.src[this.i]!)) this.i++;
    const word = this.src.slice(start, this.i);
    // String prefixes (r"...", b"...") are not part of the subset; reject them clearly.
    if ((this.src[this.i] === '"' || this.src[this.i] === "'") && /^[rRbBuUfF]{1,2}$/.test(word)) {
      fail(`string prefix "${word}" is not supported in TVMScript`, pos);
    }
    this.push("name", word, pos);
  }

  private readNumber(): void {
    const pos = this.pos();
    const rest = this.src.slice(this.i);
    const hex = /^0[xX][0-9a-fA-F_]+/.exec(rest);
    if (hex) {
      this.i += hex[0].length;
      this.push("number", hex[0], pos, { value: Number(hex[0].replace(/_/g, "")), isFloat: false });
      return;
    }
    const m = /^(?:\d[\d_]*)?(\.[\d_]*)?(?:[eE][+-]?\d+)?/.exec(rest)!;
    let literal = m[0];
    // `1.` followed by a name is attribute access on an int in Python; not meaningful here.
    const isFloat = /[.eE]/.test(literal);
    this.i += literal.length;
    if (/[A-Za-z_]/.test(this.src[this.i] ?? "")) fail(`invalid number literal "${literal}${this.src[this.i]}"`, pos);
    literal = literal.replace(/_/g, "");
    this.push("number", literal, pos, { value: Number(literal), isFloat });
  }

  private readString(): void {
    const pos = this.pos();
    const quote = this.src[this.i]!;
    const triple = this.src.startsWith(quote.repeat(3), this.i);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.i += delimiter.length;
    let out = "";
    for (;;) {
      const c = this.src[this.i];
      if (c === undefined || (!triple && (c === "\n" || c === "\r"))) {
        fail("unterminated string literal", pos);
      }
      if (this.src.startsWith(delimiter, this.i)) {
        this.i += delimiter.length;
        break;
      }
      if (c === "\\") {
        const next = this.src[this.i + 1];
        if (next === undefined) fail("unterminated string literal", pos);
        out += ESCAPES[next] ?? `\\${next}`;
        this.i += 2;
        continue;
      }
      if (c === "\n") {
        this.line++;
        this.lineStart = this.i + 1;
      }
      out += c;
      this.i++;
    }
    this.push("string", out, pos);
  }

  private readOperator(): void {
    const pos = this.pos();
    const op = OPERATORS.find((o) => this.src.startsWith(o, this.i));
    if (op === undefined) fail(`unexpected character "${this.src[this.i]}"`, pos);
    this.i += op.length;
    if (OPENERS[op] !== undefined) {
      this.brackets.push({ char: op, pos });
    } else if (CLOSERS.has(op)) {
      const open = this.brackets.pop();
      if (open === undefined) fail(`unmatched "${op}"`, pos);
      if (OPENERS[open.char] !== op) {
        fail(`closing "${op}" does not match the opening "${open.char}" at line ${open.pos.line}`, pos);
      }
    }
    this.push("op", op, pos);
  }
}

/**
 * Syntax errors of the TVMScript parser, reported compiler-style with the offending source line
 * and a caret under the column.
 */
import { TesseraError } from "../errors.js";

/** A 1-based source position. */
export interface SourcePos {
  readonly line: number;
  readonly column: number;
}

/** The source text and file name that diagnostics quote. */
export interface SourceFile {
  readonly fileName: string;
  readonly lines: readonly string[];
}

export function sourceFile(text: string, fileName: string): SourceFile {
  return { fileName, lines: text.split(/\r\n|\r|\n/) };
}

export class TVMScriptSyntaxError extends TesseraError {
  override name = "TVMScriptSyntaxError";
  readonly fileName: string;
  readonly line: number;
  readonly column: number;
  /** The message without location and source excerpt. */
  readonly reason: string;

  constructor(reason: string, file: SourceFile, pos: SourcePos) {
    super(formatDiagnostic(reason, file, pos));
    this.reason = reason;
    this.fileName = file.fileName;
    this.line = pos.line;
    this.column = pos.column;
  }
}

/**
 * `file:line:col: error: reason`, then the source line behind a line-number gutter and a caret
 * line below it.
 */
export function formatDiagnostic(reason: string, file: SourceFile, pos: SourcePos): string {
  const header = `${file.fileName}:${pos.line}:${pos.column}: error: ${capped(reason, MAX_REASON_CHARS)}`;
  const fullLine = file.lines[pos.line - 1];
  if (fullLine === undefined) return header;
  const { text: source, column } = excerpt(fullLine, pos.column);
  const gutter = String(pos.line).padStart(6);
  const blank = " ".repeat(gutter.length);
  // Tabs are kept in the caret line so the caret lines up however the terminal renders them.
  const lead = source.slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, " ");
  return `${header}\n${gutter} | ${source}\n${blank} | ${lead}^`;
}

/** A reason quoting the input (a huge token, say) is cut to this many characters. */
const MAX_REASON_CHARS = 500;
/** Characters of the source line shown on each side of the column (a megabyte-long line is not printed whole). */
const EXCERPT_RADIUS = 60;

function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The part of `line` around `column`, with "…" where it was cut, and the column within it. */
function excerpt(line: string, column: number): { text: string; column: number } {
  if (line.length <= 2 * EXCERPT_RADIUS) return { text: line, column };
  const start = Math.max(0, column - 1 - EXCERPT_RADIUS);
  const end = Math.min(line.length, column - 1 + EXCERPT_RADIUS);
  const before = start > 0 ? "…" : "";
  const after = end < line.length ? "…" : "";
  return { text: `${before}${line.slice(start, end)}${after}`, column: column - start + before.length };
}

/**
 * Raised inside the parser before the source file is known to the raising code; the driver
 * converts it into a `TVMScriptSyntaxError` at the top.
 */
export class ParseFailure extends Error {
  constructor(
    readonly reason: string,
    readonly pos: SourcePos,
  ) {
    super(reason);
  }
}

export function fail(reason: string, pos: SourcePos): never {
  throw new ParseFailure(reason, pos);
}

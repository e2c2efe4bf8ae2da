/**
 * Parses a trace written as text — what `Trace.show()` prints, e.g. a student's
 * trace_submission.ts — into the schedule calls it makes:
 *
 *   import type { Schedule } from "@tessera/schedule";
 *   export function applyTrace(sch: Schedule): void {
 *     const b0 = sch.getBlock("gemm");
 *     const [l1, l2, l3] = sch.getLoops(b0);
 *     sch.bind(l1, "blockIdx.x");
 *   }
 *
 * Imports and the function header are skipped; each statement is a call on the schedule, alone or
 * bound to a name or a list of names. Arguments are literals (numbers, strings, null, booleans,
 * arrays, objects), names bound by earlier lines, and LoopRV.ROOT / LoopRV.INLINE.
 */
import { TraceTextError } from "./errors.js";
import { type Token, tokenize } from "./text-lexer.js";

/** A name bound by an earlier statement, used as an argument. */
export class HandleRef {
  constructor(
    readonly name: string,
    readonly line: number,
    readonly column: number,
  ) {}
}

/** `LoopRV.ROOT` / `LoopRV.INLINE` (TVM's compute-location marks). */
export class MarkRef {
  constructor(readonly mark: "root" | "inline") {}
}

export class ObjectLiteral {
  constructor(readonly entries: ReadonlyMap<string, TextValue>) {}
}

export type TextValue = null | undefined | boolean | number | string | HandleRef | MarkRef | ObjectLiteral | readonly TextValue[];

export type Binding =
  | { readonly kind: "none" }
  | { readonly kind: "single"; readonly name: string }
  | { readonly kind: "tuple"; readonly names: readonly string[] };

export interface TraceCall {
  readonly line: number;
  readonly column: number;
  readonly method: string;
  readonly args: readonly TextValue[];
  readonly binding: Binding;
}

/** Arrays and objects nested deeper than this are not a schedule argument: refused, not a stack overflow. */
export const MAX_TEXT_VALUE_DEPTH = 16;

export function parseTraceText(text: string): TraceCall[] {
  return new TextParser(tokenize(text)).program();
}

class TextParser {
  private pos = 0;
  /** The schedule's parameter name in `function applyTrace(sch: Schedule)` ("sch" without a header). */
  private receiver = "sch";

  constructor(private readonly tokens: readonly Token[]) {}

  program(): TraceCall[] {
    const calls: TraceCall[] = [];
    while (this.peek().kind !== "eof") {
      const t = this.peek();
      if (this.isIdent(t, "import")) this.skipImport();
      else if (this.isIdent(t, "export") || this.isIdent(t, "function")) this.functionHeader();
      else if (this.isPunct(t, "}") || this.isPunct(t, ";")) this.pos++;
      else calls.push(this.statement());
    }
    return calls;
  }

  private skipImport(): void {
    const start = this.next();
    while (!this.isPunct(this.peek(), ";")) {
      if (this.peek().kind === "eof") throw this.error(start, "an import without its closing ';'");
      this.pos++;
    }
    this.pos++;
  }

  /** `export function NAME(sch: Schedule): void {`: remembers the schedule's parameter name. */
  private functionHeader(): void {
    if (this.isIdent(this.peek(), "export")) this.pos++;
    this.expectIdent("function");
    this.expectKind("ident", "the function's name");
    this.expectPunct("(");
    const param = this.expectKind("ident", "the schedule parameter, e.g. (sch: Schedule)");
    this.receiver = param.text;
    while (!this.isPunct(this.peek(), "{")) {
      if (this.peek().kind === "eof") throw this.error(param, "a function header without its opening '{'");
      this.pos++;
    }
    this.pos++;
  }

  private statement(): TraceCall {
    const first = this.peek();
    let binding: Binding = { kind: "none" };
    if (this.isIdent(first, "const") || this.isIdent(first, "let") || this.isIdent(first, "var")) {
      this.pos++;
      binding = this.binding();
      this.expectPunct("=");
    }
    const call = this.call(binding);
    if (this.isPunct(this.peek(), ";")) this.pos++;
    else if (this.peek().line === this.tokens[this.pos - 1]!.line && !this.isPunct(this.peek(), "}") && this.peek().kind !== "eof") {
      throw this.error(this.peek(), `expected ';' or a new line after the call to ${this.receiver}.${call.method}`);
    }
    return call;
  }

  private binding(): Binding {
    if (!this.isPunct(this.peek(), "[")) return { kind: "single", name: this.expectKind("ident", "a name to bind").text };
    this.pos++;
    const names: string[] = [];
    while (!this.isPunct(this.peek(), "]")) {
      names.push(this.expectKind("ident", "a name in the list of outputs").text);
      this.separator("]");
    }
    this.pos++;
    return { kind: "tuple", names };
  }

  private call(binding: Binding): TraceCall {
    const receiver = this.peek();
    if (receiver.kind !== "ident" || receiver.text !== this.receiver) {
      throw this.error(receiver, `expected a schedule call such as '${this.receiver}.getBlock("name")', found ${describe(receiver)}`);
    }
    this.pos++;
    this.expectPunct(".");
    const method = this.expectKind("ident", "a schedule method");
    this.expectPunct("(");
    const args: TextValue[] = [];
    while (!this.isPunct(this.peek(), ")")) {
      args.push(this.value(0));
      this.separator(")");
    }
    this.pos++;
    return { line: receiver.line, column: receiver.column, method: method.text, args, binding };
  }

  private value(depth: number): TextValue {
    const t = this.next();
    if (depth > MAX_TEXT_VALUE_DEPTH) throw this.error(t, `arguments nested deeper than ${MAX_TEXT_VALUE_DEPTH} levels`);
    if (t.kind === "number") return Number(t.text);
    if (t.kind === "string") return t.text;
    if (this.isPunct(t, "-") && this.peek().kind === "number") return -Number(this.next().text);
    if (this.isPunct(t, "[")) return this.list(depth);
    if (this.isPunct(t, "{")) return this.object(depth);
    if (this.isPunct(t, "(")) {
      throw this.error(
        t,
        "an index map (an arrow function, as transformLayout takes) cannot be read from a text trace; give this trace as JSON (JSON.stringify(sch.trace))",
      );
    }
    if (t.kind !== "ident") throw this.error(t, `expected an argument, found ${describe(t)}`);
    switch (t.text) {
      case "null":
        return null;
      case "undefined":
        return undefined;
      case "true":
        return true;
      case "false":
        return false;
      case "LoopRV":
        return this.mark(t);
      default:
        return new HandleRef(t.text, t.line, t.column);
    }
  }

  private list(depth: number): TextValue[] {
    const items: TextValue[] = [];
    while (!this.isPunct(this.peek(), "]")) {
      items.push(this.value(depth + 1));
      this.separator("]");
    }
    this.pos++;
    return items;
  }

  private object(depth: number): ObjectLiteral {
    const entries = new Map<string, TextValue>();
    while (!this.isPunct(this.peek(), "}")) {
      const key = this.next();
      if (key.kind !== "ident" && key.kind !== "string") throw this.error(key, `expected a property name, found ${describe(key)}`);
      this.expectPunct(":");
      entries.set(key.text, this.value(depth + 1));
      this.separator("}");
    }
    this.pos++;
    return new ObjectLiteral(entries);
  }

  /** `LoopRV.ROOT`, `LoopRV.INLINE`, `LoopRV.rootMark()`, `LoopRV.inlineMark()`. */
  private mark(start: Token): MarkRef {
    this.expectPunct(".");
    const name = this.expectKind("ident", "ROOT or INLINE").text;
    if (name === "rootMark" || name === "inlineMark") {
      this.expectPunct("(");
      this.expectPunct(")");
    }
    if (name === "ROOT" || name === "rootMark") return new MarkRef("root");
    if (name === "INLINE" || name === "inlineMark") return new MarkRef("inline");
    throw this.error(start, `unknown LoopRV.${name}: a trace uses LoopRV.ROOT or LoopRV.INLINE`);
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== "eof") this.pos++;
    return t;
  }

  private isIdent(t: Token, text: string): boolean {
    return t.kind === "ident" && t.text === text;
  }

  private isPunct(t: Token, text: string): boolean {
    return t.kind === "punct" && t.text === text;
  }

  /** After a list item: a ',' (consumed) or the list's closing bracket (left for the caller). */
  private separator(close: string): void {
    const t = this.peek();
    if (this.isPunct(t, close)) return;
    if (!this.isPunct(t, ",")) throw this.error(t, `expected ',' or '${close}', found ${describe(t)}`);
    this.pos++;
  }

  private expectIdent(text: string): Token {
    const t = this.next();
    if (!this.isIdent(t, text)) throw this.error(t, `expected '${text}', found ${describe(t)}`);
    return t;
  }

  private expectPunct(text: string): Token {
    const t = this.next();
    if (!this.isPunct(t, text)) throw this.error(t, `expected '${text}', found ${describe(t)}`);
    return t;
  }

  private expectKind(kind: Token["kind"], what: string): Token {
    const t = this.next();
    if (t.kind !== kind) throw this.error(t, `expected ${what}, found ${describe(t)}`);
    return t;
  }

  private error(t: Token, problem: string): TraceTextError {
    return new TraceTextError(t.line, t.column, problem);
  }
}

function describe(t: Token): string {
  if (t.kind === "eof") return "the end of the text";
  if (t.kind === "string") return `the string ${JSON.stringify(t.text.length > 40 ? `${t.text.slice(0, 40)}…` : t.text)}`;
  return `'${t.text.length > 40 ? `${t.text.slice(0, 40)}…` : t.text}'`;
}

/**
 * Just enough of Python's expression syntax to read the expressions of TVM's arithmetic tests:
 * literals, names, attribute access, calls (positional, keyword and `*` arguments), subscripts,
 * tuples, lists, dicts, unary and binary operators with Python's precedence, chained comparisons,
 * `not`/`and`/`or` and `a if c else b`. Anything else is a `PySyntaxError`.
 */

export type PyNode =
  | { readonly t: "num"; readonly text: string }
  | { readonly t: "str"; readonly value: string }
  | { readonly t: "name"; readonly id: string }
  | { readonly t: "attr"; readonly obj: PyNode; readonly name: string }
  | { readonly t: "call"; readonly fn: PyNode; readonly args: readonly PyArg[] }
  | { readonly t: "index"; readonly obj: PyNode; readonly index: PyNode }
  | { readonly t: "tuple" | "list"; readonly items: readonly PyNode[] }
  | { readonly t: "dict"; readonly entries: readonly (readonly [PyNode, PyNode])[] }
  | { readonly t: "unary"; readonly op: string; readonly a: PyNode }
  | { readonly t: "binop"; readonly op: string; readonly a: PyNode; readonly b: PyNode }
  | { readonly t: "compare"; readonly ops: readonly string[]; readonly operands: readonly PyNode[] }
  | { readonly t: "bool"; readonly op: "and" | "or"; readonly a: PyNode; readonly b: PyNode }
  | { readonly t: "ifexp"; readonly cond: PyNode; readonly whenTrue: PyNode; readonly whenFalse: PyNode }
  | { readonly t: "star"; readonly a: PyNode }
  | { readonly t: "lambda"; readonly params: readonly string[]; readonly body: PyNode };

export interface PyArg {
  readonly name?: string;
  readonly value: PyNode;
}

export class PySyntaxError extends Error {}

interface Token {
  readonly kind: "num" | "str" | "name" | "op";
  readonly text: string;
}

const OPERATORS = [
  "**",
  "//",
  "<<",
  ">>",
  "<=",
  ">=",
  "==",
  "!=",
  "->",
  "+",
  "-",
  "*",
  "/",
  "%",
  "&",
  "|",
  "^",
  "~",
  "<",
  ">",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ".",
  "=",
  "@",
];

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c) || c === "\\") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    const num = /^(?:0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)/.exec(src.slice(i));
    if (num !== null) {
      out.push({ kind: "num", text: num[0].replaceAll("_", "") });
      i += num[0].length;
      continue;
    }
    const str = /^[rbfu]?("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/.exec(src.slice(i));
    if (str !== null) {
      const body = str[1]!;
      const q = body.startsWith('"""') || body.startsWith("'''") ? 3 : 1;
      // Adjacent literals concatenate, as in Python.
      const value = body.slice(q, body.length - q);
      const prev = out[out.length - 1];
      if (prev?.kind === "str") out[out.length - 1] = { kind: "str", text: prev.text + value };
      else out.push({ kind: "str", text: value });
      i += str[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z_0-9]*/.exec(src.slice(i));
    if (name !== null) {
      out.push({ kind: "name", text: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) throw new PySyntaxError(`unexpected character ${JSON.stringify(c)}`);
    out.push({ kind: "op", text: op });
    i += op.length;
  }
  return out;
}

const COMPARE_OPS = new Set(["<", "<=", ">", ">=", "==", "!=", "in", "is"]);
/** Binary operator levels, loosest first. */
const LEVELS: readonly (readonly string[])[] = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "//", "%", "@"]];

export function parsePython(src: string): PyNode {
  const p = new Parser(tokenize(src));
  const e = p.exprList();
  p.expectEnd();
  return e;
}

class Parser {
  private pos = 0;
  constructor(private readonly toks: readonly Token[]) {}

  private peek(k = 0): Token | undefined {
    return this.toks[this.pos + k];
  }

  private isOp(text: string): boolean {
    const t = this.peek();
    return t !== undefined && t.kind === "op" && t.text === text;
  }

  private isName(text: string): boolean {
    const t = this.peek();
    return t !== undefined && t.kind === "name" && t.text === text;
  }

  private take(text: string): void {
    if (!this.isOp(text)) throw new PySyntaxError(`expected ${text}, found ${this.peek()?.text ?? "end"}`);
    this.pos++;
  }

  expectEnd(): void {
    if (this.pos !== this.toks.length) throw new PySyntaxError(`unexpected ${this.peek()!.text}`);
  }

  /** `a, b, c` (a tuple when a comma appears). */
  exprList(): PyNode {
    const first = this.expr();
    if (!this.isOp(",")) return first;
    const items = [first];
    while (this.isOp(",")) {
      this.pos++;
      if (this.atListEnd()) break;
      items.push(this.expr());
    }
    return { t: "tuple", items };
  }

  private atListEnd(): boolean {
    const t = this.peek();
    return t === undefined || (t.kind === "op" && [")", "]", "}", "=", ":"].includes(t.text));
  }

  expr(): PyNode {
    if (this.isOp("*")) {
      this.pos++;
      return { t: "star", a: this.expr() };
    }
    if (this.isName("lambda")) return this.lambda();
    const e = this.or();
    if (this.isName("if")) {
      this.pos++;
      const cond = this.or();
      if (!this.isName("else")) throw new PySyntaxError("expected else");
      this.pos++;
      return { t: "ifexp", cond, whenTrue: e, whenFalse: this.expr() };
    }
    if (this.isName("for")) throw new PySyntaxError("comprehension");
    return e;
  }

  /** `lambda a, b: body` (plain positional parameters only). */
  private lambda(): PyNode {
    this.pos++;
    const params: string[] = [];
    while (!this.isOp(":")) {
      const star = this.isOp("*");
      if (star) this.pos++;
      const t = this.peek();
      if (t === undefined || t.kind !== "name") throw new PySyntaxError("lambda parameter");
      params.push(star ? `*${t.text}` : t.text);
      this.pos++;
      if (this.isOp(",")) this.pos++;
    }
    this.pos++;
    return { t: "lambda", params, body: this.expr() };
  }

  private or(): PyNode {
    return this.boolChain("or", () => this.and());
  }

  private and(): PyNode {
    return this.boolChain("and", () => this.not());
  }

  /** `a op b op c`, left-associated. */
  private boolChain(op: "and" | "or", operand: () => PyNode): PyNode {
    let a = operand();
    while (this.isName(op)) {
      this.pos++;
      a = { t: "bool", op, a, b: operand() };
    }
    return a;
  }

  private not(): PyNode {
    if (this.isName("not")) {
      this.pos++;
      return { t: "unary", op: "not", a: this.not() };
    }
    return this.comparison();
  }

  private comparison(): PyNode {
    const first = this.binary(0);
    const ops: string[] = [];
    const operands = [first];
    for (;;) {
      const t = this.peek();
      if (t === undefined || !COMPARE_OPS.has(t.text) || (t.kind === "name" && t.text !== "in" && t.text !== "is")) break;
      this.pos++;
      let op = t.text;
      if (op === "is" && this.isName("not")) {
        this.pos++;
        op = "is not";
      }
      ops.push(op);
      operands.push(this.binary(0));
    }
    return ops.length === 0 ? first : { t: "compare", ops, operands };
  }

  private binary(level: number): PyNode {
    if (level === LEVELS.length) return this.unary();
    let a = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (t === undefined || t.kind !== "op" || !LEVELS[level]!.includes(t.text)) return a;
      this.pos++;
      a = { t: "binop", op: t.text, a, b: this.binary(level + 1) };
    }
  }

  private unary(): PyNode {
    const t = this.peek();
    if (t !== undefined && t.kind === "op" && (t.text === "-" || t.text === "+" || t.text === "~")) {
      this.pos++;
      return { t: "unary", op: t.text, a: this.unary() };
    }
    return this.power();
  }

  private power(): PyNode {
    const base = this.postfix();
    if (this.isOp("**")) {
      this.pos++;
      return { t: "binop", op: "**", a: base, b: this.unary() };
    }
    return base;
  }

  private postfix(): PyNode {
    let e = this.atom();
    for (;;) {
      if (this.isOp(".")) {
        this.pos++;
        const n = this.peek();
        if (n?.kind !== "name") throw new PySyntaxError("expected attribute name");
        this.pos++;
        e = { t: "attr", obj: e, name: n.text };
      } else if (this.isOp("(")) {
        this.pos++;
        e = { t: "call", fn: e, args: this.args() };
      } else if (this.isOp("[")) {
        this.pos++;
        const index = this.exprList();
        this.take("]");
        e = { t: "index", obj: e, index };
      } else return e;
    }
  }

  private args(): PyArg[] {
    const args: PyArg[] = [];
    while (!this.isOp(")")) {
      const t = this.peek();
      if (t?.kind === "name" && this.peek(1)?.text === "=" && this.peek(1)?.kind === "op") {
        this.pos += 2;
        args.push({ name: t.text, value: this.expr() });
      } else args.push({ value: this.expr() });
      if (!this.isOp(",")) break;
      this.pos++;
    }
    this.take(")");
    return args;
  }

  private atom(): PyNode {
    const t = this.peek();
    if (t === undefined) throw new PySyntaxError("unexpected end");
    this.pos++;
    if (t.kind === "num") return { t: "num", text: t.text };
    if (t.kind === "str") return { t: "str", value: t.text };
    if (t.kind === "name") return { t: "name", id: t.text };
    if (t.text === "(") {
      if (this.isOp(")")) {
        this.pos++;
        return { t: "tuple", items: [] };
      }
      const first = this.expr();
      if (this.isOp(")")) {
        this.pos++;
        return first;
      }
      const items = [first];
      while (this.isOp(",")) {
        this.pos++;
        if (this.isOp(")")) break;
        items.push(this.expr());
      }
      this.take(")");
      return { t: "tuple", items };
    }
    if (t.text === "[") {
      const items: PyNode[] = [];
      while (!this.isOp("]")) {
        items.push(this.expr());
        if (!this.isOp(",")) break;
        this.pos++;
      }
      this.take("]");
      return { t: "list", items };
    }
    if (t.text === "{") {
      const entries: [PyNode, PyNode][] = [];
      while (!this.isOp("}")) {
        const k = this.expr();
        this.take(":");
        entries.push([k, this.expr()]);
        if (!this.isOp(",")) break;
        this.pos++;
      }
      this.take("}");
      return { t: "dict", entries };
    }
    throw new PySyntaxError(`unexpected ${t.text}`);
  }
}

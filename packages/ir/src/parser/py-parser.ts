/**
 * Recursive-descent parser from tokens to the Python-subset syntax tree (`ast.ts`). It knows
 * Python's grammar and precedence, nothing about TensorIR. Python constructs that TVMScript does
 * not use are rejected here with a message naming the construct.
 */
import type { BinOpText, CompareText, Keyword, Param, PyExpr, PyStmt } from "./ast.js";
import { fail } from "./errors.js";
import { type Token, tokenize } from "./lexer.js";
import { MAX_EXPRESSION_DEPTH, MAX_STATEMENT_NESTING, checkNesting } from "./nesting.js";

const UNSUPPORTED_STATEMENTS = new Set(["try", "del", "global", "nonlocal", "raise", "yield", "async", "await", "match", "except", "finally"]);

const KEYWORDS = new Set([
  ...UNSUPPORTED_STATEMENTS,
  "break",
  "continue",
  "assert",
  "lambda",
  "while",
  "return",
  "def",
  "class",
  "for",
  "in",
  "with",
  "as",
  "if",
  "elif",
  "else",
  "pass",
  "import",
  "from",
  "and",
  "or",
  "not",
  "is",
  "True",
  "False",
  "None",
]);

const COMPARE_OPS = new Set(["<", "<=", ">", ">=", "==", "!="]);
const AUG_OPS: Record<string, BinOpText> = {
  "+=": "+",
  "-=": "-",
  "*=": "*",
  "/=": "/",
  "//=": "//",
  "%=": "%",
  "**=": "**",
  "<<=": "<<",
  ">>=": ">>",
  "&=": "&",
  "|=": "|",
  "^=": "^",
};

export function parsePython(text: string): PyStmt[] {
  const module = new PyParser(tokenize(text)).parseModule();
  checkNesting(module);
  return module;
}

class PyParser {
  private i = 0;
  /** Blocks being parsed, and expressions within the current statement: bounded before the stack is. */
  private blocks = 0;
  private expressions = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  // ---------------------------------------------------------------------------------------------
  // Token helpers

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  /** Read through a method so that TypeScript does not narrow it across `next()` calls. */
  private kind(): Token["kind"] {
    return this.tokens[this.i]!.kind;
  }

  private peek(offset = 1): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.tok;
    if (t.kind !== "eof") this.i++;
    return t;
  }

  private isOp(text: string): boolean {
    return this.kind() === "op" && this.tok.text === text;
  }

  private isKeyword(word: string): boolean {
    return this.kind() === "name" && this.tok.text === word;
  }

  private acceptOp(text: string): boolean {
    if (!this.isOp(text)) return false;
    this.i++;
    return true;
  }

  private expectOp(text: string, what?: string): Token {
    if (!this.isOp(text)) fail(`expected "${text}"${what ? ` ${what}` : ""}, found ${describe(this.tok)}`, this.tok.pos);
    return this.next();
  }

  private expectKeyword(word: string): Token {
    if (!this.isKeyword(word)) fail(`expected "${word}", found ${describe(this.tok)}`, this.tok.pos);
    return this.next();
  }

  private expectName(what: string): Token {
    const t = this.tok;
    if (t.kind !== "name" || KEYWORDS.has(t.text)) fail(`expected ${what}, found ${describe(t)}`, t.pos);
    return this.next();
  }

  private expectNewline(): void {
    if (this.kind() === "newline") {
      this.next();
      return;
    }
    if (this.kind() === "eof" || this.kind() === "dedent") return;
    fail(`expected the end of the statement, found ${describe(this.tok)}`, this.tok.pos);
  }

  // ---------------------------------------------------------------------------------------------
  // Statements

  parseModule(): PyStmt[] {
    const body: PyStmt[] = [];
    while (this.kind() !== "eof") {
      if (this.kind() === "indent") fail("bad indentation: unexpected indent", this.tok.pos);
      body.push(...this.parseStatement());
    }
    return body;
  }

  /** A suite after `:` — an indented block, or simple statements on the same line. */
  private parseSuite(): PyStmt[] {
    return this.nestedBlock(() => this.parseSuiteUnguarded());
  }

  private parseSuiteUnguarded(): PyStmt[] {
    if (this.kind() !== "newline") return this.parseSimpleLine();
    this.next();
    const first = this.tok;
    if (first.kind !== "indent") fail("bad indentation: expected an indented block", first.pos);
    this.next();
    const body: PyStmt[] = [];
    while (this.kind() !== "dedent" && this.kind() !== "eof") {
      if (this.kind() === "indent") fail("bad indentation: unexpected indent", this.tok.pos);
      body.push(...this.parseStatement());
    }
    this.next();
    return body;
  }

  private parseStatement(): PyStmt[] {
    const t = this.tok;
    if (this.isOp("@")) return [this.parseDecorated()];
    if (t.kind === "name") {
      switch (t.text) {
        case "def":
          return [this.parseFunctionDef([])];
        case "class":
          return [this.parseClassDef([])];
        case "for":
          return [this.parseFor()];
        case "with":
          return [this.parseWith()];
        case "if":
          return [this.parseIf()];
        case "while":
          return [this.parseWhile()];
        case "elif":
        case "else":
          fail(`"${t.text}" without a matching "if"`, t.pos);
      }
      if (UNSUPPORTED_STATEMENTS.has(t.text)) {
        fail(`unsupported Python construct "${t.text}" in TVMScript`, t.pos);
      }
    }
    return this.parseSimpleLine();
  }

  private parseSimpleLine(): PyStmt[] {
    const out = [this.parseSimpleStatement()];
    while (this.acceptOp(";")) {
      if (this.kind() === "newline" || this.kind() === "eof") break;
      out.push(this.parseSimpleStatement());
    }
    this.expectNewline();
    return out;
  }

  private parseDecorated(): PyStmt {
    const decorators: PyExpr[] = [];
    while (this.acceptOp("@")) {
      decorators.push(this.parseExpr());
      this.expectNewline();
    }
    if (this.isKeyword("def")) return this.parseFunctionDef(decorators);
    if (this.isKeyword("class")) return this.parseClassDef(decorators);
    fail(`expected "def" or "class" after a decorator, found ${describe(this.tok)}`, this.tok.pos);
  }

  private parseFunctionDef(decorators: PyExpr[]): PyStmt {
    const pos = this.expectKeyword("def").pos;
    const name = this.expectName("a function name").text;
    this.expectOp("(");
    const params: Param[] = [];
    while (!this.isOp(")")) {
      if (this.isOp("*") || this.isOp("**")) fail("variadic parameters are not supported in TVMScript", this.tok.pos);
      const p = this.expectName("a parameter name");
      const annotation = this.acceptOp(":") ? this.parseExpr() : undefined;
      if (this.isOp("=")) fail("default parameter values are not supported in TVMScript", this.tok.pos);
      params.push({ name: p.text, annotation, pos: p.pos });
      if (!this.acceptOp(",")) break;
    }
    this.expectOp(")", "to close the parameter list");
    const returns = this.acceptOp("->") ? this.parseExpr() : undefined;
    this.expectOp(":");
    return { kind: "FunctionDef", name, params, returns, decorators, body: this.parseSuite(), pos };
  }

  private parseClassDef(decorators: PyExpr[]): PyStmt {
    const pos = this.expectKeyword("class").pos;
    const name = this.expectName("a class name").text;
    if (this.acceptOp("(")) {
      while (!this.isOp(")")) {
        this.parseExpr();
        if (!this.acceptOp(",")) break;
      }
      this.expectOp(")");
    }
    this.expectOp(":");
    return { kind: "ClassDef", name, decorators, body: this.parseSuite(), pos };
  }

  private parseFor(): PyStmt {
    const pos = this.expectKeyword("for").pos;
    const target = this.parseTargetList();
    this.expectKeyword("in");
    const iter = this.parseExprList();
    this.expectOp(":");
    return { kind: "For", target, iter, body: this.parseSuite(), pos };
  }

  private parseWith(): PyStmt {
    const pos = this.expectKeyword("with").pos;
    const item = this.parseExpr();
    let asTarget: PyExpr | undefined;
    if (this.isKeyword("as")) {
      this.next();
      asTarget = this.parseTargetList();
    }
    if (this.isOp(",")) fail("a with statement may only have one context manager in TVMScript", this.tok.pos);
    this.expectOp(":");
    return { kind: "With", item, asTarget, body: this.parseSuite(), pos };
  }

  private parseIf(): PyStmt {
    const pos = this.next().pos; // `if` or `elif`
    const test = this.parseExpr();
    this.expectOp(":");
    const body = this.parseSuite();
    let orelse: PyStmt[] = [];
    if (this.isKeyword("elif")) {
      orelse = [this.nestedBlock(() => this.parseIf())];
    } else if (this.isKeyword("else")) {
      this.next();
      this.expectOp(":");
      orelse = this.parseSuite();
    }
    return { kind: "If", test, body, orelse, pos };
  }

  private parseWhile(): PyStmt {
    const pos = this.expectKeyword("while").pos;
    const test = this.parseExpr();
    this.expectOp(":");
    return { kind: "While", test, body: this.parseSuite(), pos };
  }

  private atStatementEnd(): boolean {
    return this.kind() === "newline" || this.kind() === "eof" || this.kind() === "dedent" || this.isOp(";");
  }

  private parseSimpleStatement(): PyStmt {
    const t = this.tok;
    if (this.isKeyword("pass")) {
      this.next();
      return { kind: "Pass", pos: t.pos };
    }
    if (this.isKeyword("break") || this.isKeyword("continue")) {
      this.next();
      return { kind: t.text === "break" ? "Break" : "Continue", pos: t.pos };
    }
    if (this.isKeyword("return")) {
      this.next();
      return { kind: "Return", value: this.atStatementEnd() ? undefined : this.parseExprList(), pos: t.pos };
    }
    if (this.isKeyword("assert")) {
      this.next();
      const test = this.parseExpr();
      const msg = this.acceptOp(",") ? this.parseExpr() : undefined;
      return { kind: "Assert", test, msg, pos: t.pos };
    }
    if (this.isKeyword("import") || this.isKeyword("from")) {
      while (this.kind() !== "newline" && this.kind() !== "eof" && !this.isOp(";")) this.next();
      return { kind: "Import", pos: t.pos };
    }
    if (t.kind === "name" && UNSUPPORTED_STATEMENTS.has(t.text)) {
      fail(`unsupported Python construct "${t.text}" in TVMScript`, t.pos);
    }
    const first = this.parseExprList();
    if (this.acceptOp("=")) {
      const value = this.parseExprList();
      if (this.isOp("=")) fail("chained assignment is not supported in TVMScript", this.tok.pos);
      return { kind: "Assign", target: first, value, pos: t.pos };
    }
    const aug = this.kind() === "op" ? AUG_OPS[this.tok.text] : undefined;
    if (aug !== undefined) {
      this.next();
      return { kind: "AugAssign", target: first, op: aug, value: this.parseExpr(), pos: t.pos };
    }
    if (this.acceptOp(":")) {
      const annotation = this.parseExpr();
      const value = this.acceptOp("=") ? this.parseExprList() : undefined;
      return { kind: "AnnAssign", target: first, annotation, value, pos: t.pos };
    }
    return { kind: "ExprStmt", value: first, pos: t.pos };
  }

  // ---------------------------------------------------------------------------------------------
  // Expressions

  /** `a, b, c` without brackets (a tuple when there is a comma). */
  private parseExprList(): PyExpr {
    const first = this.parseExpr();
    if (!this.isOp(",")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.endsExprList()) break;
      elts.push(this.parseExpr());
    }
    return { kind: "Tuple", elts, pos: first.pos };
  }

  /** Loop and `as` targets: bit-or level expressions, so that `in` ends the list. */
  private parseTargetList(): PyExpr {
    const first = this.parseTargetItem();
    if (!this.isOp(",")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.isKeyword("in") || this.isOp(":")) break;
      elts.push(this.parseTargetItem());
    }
    return { kind: "Tuple", elts, pos: first.pos };
  }

  /** A name of a target list, or `*rest` taking the remaining values. */
  private parseTargetItem(): PyExpr {
    const pos = this.tok.pos;
    if (!this.acceptOp("*")) return this.parseBitOr();
    return { kind: "Starred", value: this.parseBitOr(), pos };
  }

  private endsExprList(): boolean {
    const t = this.tok;
    return t.kind === "newline" || t.kind === "eof" || (t.kind === "op" && [")", "]", "}", "=", ":", ";"].includes(t.text));
  }

  /** Parses a nested expression, failing cleanly past MAX_EXPRESSION_DEPTH instead of overflowing the stack. */
  private nested<T>(parse: () => T): T {
    if (this.expressions >= MAX_EXPRESSION_DEPTH) fail(`expression nesting deeper than ${MAX_EXPRESSION_DEPTH} levels`, this.tok.pos);
    this.expressions++;
    try {
      return parse();
    } finally {
      this.expressions--;
    }
  }

  /** Parses a nested block (a suite, an elif), failing cleanly past MAX_STATEMENT_NESTING. */
  private nestedBlock<T>(parse: () => T): T {
    if (this.blocks >= MAX_STATEMENT_NESTING) fail(`nesting deeper than ${MAX_STATEMENT_NESTING} statements (for/with/if blocks)`, this.tok.pos);
    this.blocks++;
    const outerExpressions = this.expressions;
    this.expressions = 0;
    try {
      return parse();
    } finally {
      this.blocks--;
      this.expressions = outerExpressions;
    }
  }

  parseExpr(): PyExpr {
    return this.nested(() => this.parseExprUnguarded());
  }

  private parseExprUnguarded(): PyExpr {
    if (this.isKeyword("lambda")) return this.parseLambda();
    const e = this.parseOr();
    if (!this.isKeyword("if")) return e;
    this.next();
    const test = this.parseOr();
    this.expectKeyword("else");
    const orelse = this.parseExpr();
    return { kind: "IfExp", test, body: e, orelse, pos: e.pos };
  }

  private parseLambda(): PyExpr {
    const pos = this.expectKeyword("lambda").pos;
    const params: string[] = [];
    while (!this.isOp(":")) {
      params.push(this.expectName("a lambda parameter").text);
      if (!this.acceptOp(",")) break;
    }
    this.expectOp(":", "after the lambda parameters");
    return { kind: "Lambda", params, body: this.parseExpr(), pos };
  }

  private parseOr(): PyExpr {
    const first = this.parseAnd();
    if (!this.isKeyword("or")) return first;
    const values = [first];
    while (this.isKeyword("or")) {
      this.next();
      values.push(this.parseAnd());
    }
    return { kind: "BoolOp", op: "or", values, pos: first.pos };
  }

  private parseAnd(): PyExpr {
    const first = this.parseNot();
    if (!this.isKeyword("and")) return first;
    const values = [first];
    while (this.isKeyword("and")) {
      this.next();
      values.push(this.parseNot());
    }
    return { kind: "BoolOp", op: "and", values, pos: first.pos };
  }

  private parseNot(): PyExpr {
    if (this.isKeyword("not")) {
      const pos = this.next().pos;
      return { kind: "UnaryOp", op: "not", operand: this.nested(() => this.parseNot()), pos };
    }
    return this.parseComparison();
  }

  private parseComparison(): PyExpr {
    const left = this.parseBitOr();
    if (this.isKeyword("in") || this.isKeyword("is")) {
      fail(`unsupported Python operator "${this.tok.text}" in TVMScript`, this.tok.pos);
    }
    // `a < b < c` is Python's `a < b and b < c` (TVMScript builds the same And).
    const comparisons: PyExpr[] = [];
    let operand = left;
    while (this.kind() === "op" && COMPARE_OPS.has(this.tok.text)) {
      const opTok = this.next();
      const right = this.parseBitOr();
      comparisons.push({ kind: "Compare", op: opTok.text as CompareText, left: operand, right, pos: operand.pos, opPos: opTok.pos });
      operand = right;
    }
    if (comparisons.length <= 1) return comparisons[0] ?? left;
    return { kind: "BoolOp", op: "and", values: comparisons, pos: left.pos };
  }

  private parseBinaryLevel(ops: readonly string[], operand: () => PyExpr): PyExpr {
    let left = operand();
    // `a + b + c + …` nests to the left one level per operator: refuse a chain past the limit as
    // soon as it gets there, not after building a tree of a million terms.
    let chain = this.expressions;
    while (this.kind() === "op" && ops.includes(this.tok.text)) {
      if (++chain > MAX_EXPRESSION_DEPTH)
        fail(`expression nesting deeper than ${MAX_EXPRESSION_DEPTH} levels (a chain of more than ${MAX_EXPRESSION_DEPTH} operators)`, this.tok.pos);
      const opTok = this.next();
      const right = operand();
      left = { kind: "BinOp", op: opTok.text as BinOpText, left, right, pos: left.pos, opPos: opTok.pos };
    }
    return left;
  }

  private parseBitOr(): PyExpr {
    return this.parseBinaryLevel(["|"], () => this.parseBitXor());
  }

  private parseBitXor(): PyExpr {
    return this.parseBinaryLevel(["^"], () => this.parseBitAnd());
  }

  private parseBitAnd(): PyExpr {
    return this.parseBinaryLevel(["&"], () => this.parseShift());
  }

  private parseShift(): PyExpr {
    return this.parseBinaryLevel(["<<", ">>"], () => this.parseArith());
  }

  private parseArith(): PyExpr {
    return this.parseBinaryLevel(["+", "-"], () => this.parseTerm());
  }

  private parseTerm(): PyExpr {
    if (this.isOp("@")) fail('the "@" operator is not supported in TVMScript', this.tok.pos);
    return this.parseBinaryLevel(["*", "/", "//", "%"], () => this.parseFactor());
  }

  private parseFactor(): PyExpr {
    if (this.isOp("-") || this.isOp("+") || this.isOp("~")) {
      const t = this.next();
      return { kind: "UnaryOp", op: t.text as "-" | "+" | "~", operand: this.nested(() => this.parseFactor()), pos: t.pos };
    }
    return this.parsePower();
  }

  private parsePower(): PyExpr {
    const base = this.parsePostfix();
    if (!this.isOp("**")) return base;
    const opTok = this.next();
    const right = this.nested(() => this.parseFactor());
    return { kind: "BinOp", op: "**", left: base, right, pos: base.pos, opPos: opTok.pos };
  }

  private parsePostfix(): PyExpr {
    let e = this.parseAtom();
    for (;;) {
      if (this.isOp("(")) {
        e = this.parseCallArgs(e);
      } else if (this.isOp("[")) {
        const pos = this.next().pos;
        const indices: PyExpr[] = [];
        while (!this.isOp("]")) {
          indices.push(this.parseSubscriptItem());
          if (!this.acceptOp(",")) break;
        }
        this.expectOp("]", "to close the subscript");
        if (indices.length === 0) fail("empty subscript", pos);
        e = { kind: "Subscript", value: e, indices, pos: e.pos };
      } else if (this.isOp(".")) {
        this.next();
        const attr = this.tok;
        if (attr.kind !== "name") fail(`expected an attribute name after ".", found ${describe(attr)}`, attr.pos);
        this.next();
        e = { kind: "Attribute", value: e, attr: attr.text, pos: e.pos };
      } else {
        return e;
      }
    }
  }

  private parseCallArgs(func: PyExpr): PyExpr {
    this.expectOp("(");
    const args: PyExpr[] = [];
    const keywords: Keyword[] = [];
    while (!this.isOp(")")) {
      if (this.isOp("**")) fail("keyword argument unpacking (**) is not supported in TVMScript", this.tok.pos);
      if (this.isOp("*")) {
        if (keywords.length > 0) fail("positional argument follows keyword argument", this.tok.pos);
        args.push(this.parseDisplayItem());
        if (!this.acceptOp(",")) break;
        continue;
      }
      if (this.kind() === "name" && this.peek().kind === "op" && this.peek().text === "=") {
        const kw = this.next();
        this.next();
        if (keywords.some((k) => k.name === kw.text)) fail(`keyword argument "${kw.text}" repeated`, kw.pos);
        keywords.push({ name: kw.text, value: this.parseExpr(), pos: kw.pos });
      } else {
        if (keywords.length > 0) fail("positional argument follows keyword argument", this.tok.pos);
        args.push(this.parseExpr());
      }
      if (!this.acceptOp(",")) break;
    }
    this.expectOp(")", "to close the argument list");
    return { kind: "Call", func, args, keywords, pos: func.pos };
  }

  private parseSubscriptItem(): PyExpr {
    const pos = this.tok.pos;
    const lower = this.isOp(":") ? undefined : this.parseExpr();
    if (!this.isOp(":")) return lower!;
    this.next();
    const upper = this.isOp(",") || this.isOp("]") || this.isOp(":") ? undefined : this.parseExpr();
    let step: PyExpr | undefined;
    if (this.acceptOp(":") && !this.isOp(",") && !this.isOp("]")) step = this.parseExpr();
    return { kind: "Slice", lower, upper, step, pos };
  }

  private parseAtom(): PyExpr {
    const t = this.tok;
    switch (t.kind) {
      case "number":
        this.next();
        return { kind: "Number", value: t.value!, isFloat: t.isFloat!, pos: t.pos };
      case "string": {
        this.next();
        let value = t.text;
        while (this.kind() === "string") value += this.next().text;
        return { kind: "String", value, pos: t.pos };
      }
      case "name":
        if (t.text === "True" || t.text === "False" || t.text === "None") {
          this.next();
          return { kind: "Constant", value: t.text === "None" ? null : t.text === "True", pos: t.pos };
        }
        if (KEYWORDS.has(t.text)) {
          if (UNSUPPORTED_STATEMENTS.has(t.text)) fail(`unsupported Python construct "${t.text}" in TVMScript`, t.pos);
          fail(`unexpected keyword "${t.text}"`, t.pos);
        }
        this.next();
        return { kind: "Name", id: t.text, pos: t.pos };
      case "op":
        if (t.text === "(") return this.parseParenthesized();
        if (t.text === "[") return this.parseList();
        if (t.text === "{") return this.parseDict();
        break;
      default:
        break;
    }
    fail(`expected an expression, found ${describe(t)}`, t.pos);
  }

  private parseParenthesized(): PyExpr {
    const pos = this.expectOp("(").pos;
    if (this.acceptOp(")")) return { kind: "Tuple", elts: [], pos };
    const first = this.parseDisplayItem();
    if (first.kind !== "Starred" && this.acceptOp(")")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.isOp(")")) break;
      elts.push(this.parseDisplayItem());
    }
    this.expectOp(")", "to close the parenthesis");
    return { kind: "Tuple", elts, pos };
  }

  /** An item of a list or tuple display: an expression, or `*expr` spliced in. */
  private parseDisplayItem(): PyExpr {
    const pos = this.tok.pos;
    if (!this.acceptOp("*")) return this.parseExpr();
    return { kind: "Starred", value: this.parseExpr(), pos };
  }

  private parseList(): PyExpr {
    const pos = this.expectOp("[").pos;
    const elts: PyExpr[] = [];
    while (!this.isOp("]")) {
      elts.push(this.parseDisplayItem());
      if (!this.acceptOp(",")) break;
    }
    this.expectOp("]", "to close the list");
    return { kind: "List", elts, pos };
  }

  private parseDict(): PyExpr {
    const pos = this.expectOp("{").pos;
    const keys: PyExpr[] = [];
    const values: PyExpr[] = [];
    while (!this.isOp("}")) {
      keys.push(this.parseExpr());
      this.expectOp(":", "between a dictionary key and its value");
      values.push(this.parseExpr());
      if (!this.acceptOp(",")) break;
    }
    this.expectOp("}", "to close the dictionary");
    return { kind: "Dict", keys, values, pos };
  }
}

function describe(t: Token): string {
  switch (t.kind) {
    case "eof":
      return "the end of the input";
    case "newline":
      return "the end of the line";
    case "indent":
      return "an indented line";
    case "dedent":
      return "the end of the indented block";
    case "string":
      return "a string";
    case "number":
      return `number ${t.text}`;
    default:
      return `"${t.text}"`;
  }
}

/**
 * Python text helpers for `tvm-corpus-closure.ts`: logical lines (physical lines joined through
 * open brackets) and the value of a constant expression over already known names. Only numbers,
 * strings, arithmetic, string concatenation and f-strings of known names are evaluated, and TIR
 * values built from `T.*` calls (and `tvm.tirx.const`/`Ramp`/`Broadcast`) over known names, which
 * are handed on as TVMScript text; anything else is undefined (never guessed).
 */
import type { PyExpr } from "../src/parser/ast.js";
import type { ClosureValue } from "../src/parser/index.js";
import { parsePython } from "../src/parser/py-parser.js";

export type { ClosureValue } from "../src/parser/index.js";

export interface LogicalLine {
  /** Index of its first physical line. */
  readonly first: number;
  readonly indent: number;
  /** The physical lines joined with spaces, comments removed. */
  readonly text: string;
}

/** Joins physical lines while a bracket is open; lines inside triple-quoted strings are left out. */
export function logicalLines(lines: readonly string[]): LogicalLine[] {
  const out: LogicalLine[] = [];
  let depth = 0;
  let inTriple: string | undefined;
  let current: { first: number; indent: number; parts: string[] } | undefined;
  lines.forEach((line, k) => {
    let code = "";
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      const three = line.slice(i, i + 3);
      if (inTriple !== undefined) {
        if (three === inTriple) {
          inTriple = undefined;
          i += 2;
        }
        continue;
      }
      if (three === '"""' || three === "'''") {
        inTriple = three;
        i += 2;
        continue;
      }
      if (ch === "#") break;
      if (ch === '"' || ch === "'") {
        const close = line.indexOf(ch, i + 1);
        const end = close < 0 ? line.length : close;
        code += line.slice(i, end + 1);
        i = end;
        continue;
      }
      if ("([{".includes(ch)) depth++;
      else if (")]}".includes(ch)) depth = Math.max(0, depth - 1);
      code += ch;
    }
    if (code.trim() === "" && current === undefined) return;
    current ??= { first: k, indent: line.length - line.trimStart().length, parts: [] };
    current.parts.push(code.trim());
    if (depth === 0 && inTriple === undefined) {
      out.push({ first: current.first, indent: current.indent, text: current.parts.join(" ").trim() });
      current = undefined;
    }
  });
  return out;
}

/** Splits `a, (b, c), d` at its top-level commas. */
export function topLevelItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (ch === "," && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.slice(start).trim() !== "") items.push(text.slice(start));
  return items.map((s) => s.trim());
}

/** The text between the bracket that opens at `open` and its partner, or undefined when unbalanced. */
export function bracketed(text: string, open: number): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

/** The value of a constant Python expression, `known` giving the names it may use. */
export function constantValue(text: string, known: ReadonlyMap<string, ClosureValue>): ClosureValue | undefined {
  const t = text.trim();
  // tvm.runtime.convert(x) of a constant is that constant as a TIR value.
  const converted = /^tvm\.runtime\.convert\((.*)\)$/.exec(t);
  if (converted !== null) return constantValue(converted[1]!, known);
  const fString = /^f(["'])(.*)\1$/.exec(t);
  if (fString !== null) return formatted(fString[2]!, known);
  const e = pythonExpr(t);
  if (e?.kind === "Constant" && e.value !== null) return { expr: e.value ? "True" : "False" };
  const variable = e === undefined ? undefined : tirVariable(e, known);
  if (variable !== undefined) return variable;
  return e === undefined ? undefined : (evaluate(e, known) ?? tirValue(e, known));
}

const VAR_CONSTRUCTORS: ReadonlySet<string> = new Set(["tvm.tirx.Var", "tirx.Var", "T.Var"]);
const ITER_VAR_CONSTRUCTORS: ReadonlySet<string> = new Set(["tvm.tirx.IterVar", "tirx.IterVar"]);

/**
 * `tvm.tirx.Var("n", "int32")` as a closure variable; `tvm.tirx.IterVar(dom, v, kind, tag)` as the
 * same object as `v` (our attributes hold the variable of an IterVar).
 */
function tirVariable(e: PyExpr, known: ReadonlyMap<string, ClosureValue>): ClosureValue | undefined {
  if (e.kind !== "Call") return undefined;
  const callee = dotted(e.func) ?? "";
  if (VAR_CONSTRUCTORS.has(callee)) {
    const name = e.args[0];
    const dtypeNode = e.args[1] ?? e.keywords.find((k) => k.name === "dtype" || k.name === "ty")?.value;
    const dtype = dtypeNode === undefined ? "int32" : evaluate(dtypeNode, known);
    return name?.kind === "String" && typeof dtype === "string" ? { var: name.value, dtype } : undefined;
  }
  if (ITER_VAR_CONSTRUCTORS.has(callee)) {
    const v = e.args[1];
    const bound = v?.kind === "Name" ? known.get(v.id) : undefined;
    return typeof bound === "object" && "var" in bound ? bound : undefined;
  }
  return undefined;
}

/** The syntax tree of one Python expression, or undefined when the text is not one. */
function pythonExpr(text: string): PyExpr | undefined {
  let stmts;
  try {
    stmts = parsePython(`__value = ${text}\n`);
  } catch {
    return undefined;
  }
  const s = stmts[0];
  return stmts.length === 1 && s?.kind === "Assign" ? s.value : undefined;
}

/** Python's spellings of TIR constructors, as TVMScript spells them. */
const TIR_CONSTRUCTORS: Readonly<Record<string, string>> = {
  "tvm.tirx.Ramp": "T.Ramp",
  "tvm.tirx.expr.Ramp": "T.Ramp",
  "tvm.tirx.Broadcast": "T.Broadcast",
  "tvm.tirx.expr.Broadcast": "T.Broadcast",
  "tvm.tirx.vscale": "T.vscale",
  "tvm.target.Target": "T.target",
};

/** A TIR value built in Python, as TVMScript text, when every name in it is `T` or known. */
function tirValue(e: PyExpr, known: ReadonlyMap<string, ClosureValue>): { expr: string } | undefined {
  const text = scriptText(e, known);
  const isTuple = e.kind === "Tuple" || e.kind === "List" || e.kind === "Dict";
  return text === undefined || !(isTuple || text.includes("T.")) ? undefined : { expr: text };
}

/**
 * A Python helper `def name(a, b): return <expr>` whose body is TVMScript over its parameters and
 * known names, as a lambda: `{ expr: "lambda a, b: <expr>" }`.
 */
export function helperFunction(params: readonly string[], body: readonly string[], known: ReadonlyMap<string, ClosureValue>): { expr: string } | undefined {
  const scope = new Map(known);
  // A parameter stands for itself: known to the text, never a number to fold.
  for (const p of params) scope.set(p, { expr: p });
  // Local assignments before the return (`x = v.astype("uint32")`, `x = x << 16`) are substituted into it.
  const locals = new Map<string, string>();
  for (const line of body.slice(0, -1)) {
    const m = /^(\w+)\s*(<<|>>|[-+*&|^]|\/\/)?=(?!=)\s*(.+)$/.exec(line);
    const value = m === null ? undefined : pythonExpr(m[2] === undefined ? m[3]! : `${m[1]} ${m[2]} (${m[3]})`);
    const text = value === undefined ? undefined : scriptText(value, scope, locals);
    if (text === undefined) return undefined;
    locals.set(m![1]!, text);
  }
  const ret = body[body.length - 1];
  const e = ret?.startsWith("return ") ? pythonExpr(ret.slice("return ".length)) : undefined;
  const text = e === undefined ? undefined : scriptText(e, scope, locals);
  return text === undefined ? undefined : { expr: `lambda ${params.join(", ")}: ${text}` };
}

/** TVMScript text of `e`; `locals` gives the text of a helper's local variables (substituted, parenthesized). */
function scriptText(e: PyExpr, known: ReadonlyMap<string, ClosureValue>, locals: ReadonlyMap<string, string> = new Map()): string | undefined {
  switch (e.kind) {
    case "Number":
      return e.isFloat && Number.isInteger(e.value) ? `${e.value}.0` : String(e.value);
    case "String":
      return JSON.stringify(e.value);
    case "Constant":
      return e.value === null ? undefined : e.value ? "True" : "False";
    case "Name": {
      const local = locals.get(e.id);
      if (local !== undefined) return `(${local})`;
      return known.has(e.id) ? e.id : undefined;
    }
    case "Attribute": {
      const name = dotted(e);
      return name?.startsWith("T.") ? name : undefined;
    }
    case "UnaryOp":
      return e.op === "-" ? wrap(scriptText(e.operand, known, locals), (a) => `-(${a})`) : undefined;
    case "BinOp": {
      // Python computes arithmetic on numbers itself (`2**10`).
      const folded = evaluate(e, known);
      if (typeof folded === "number" && Number.isSafeInteger(folded)) return String(folded);
      const a = scriptText(e.left, known, locals);
      const b = scriptText(e.right, known, locals);
      return a === undefined || b === undefined ? undefined : `(${a}) ${e.op} (${b})`;
    }
    case "Call":
      return callText(e, known, locals);
    case "Dict": {
      const keys = e.keys.map((k) => (k.kind === "String" ? JSON.stringify(k.value) : undefined));
      const values = e.values.map((v) => scriptText(v, known, locals));
      if ([...keys, ...values].some((x) => x === undefined)) return undefined;
      return `{${keys.map((k, i) => `${k}: ${values[i]}`).join(", ")}}`;
    }
    case "Tuple":
    case "List": {
      const items = e.elts.map((x) => scriptText(x, known, locals));
      if (items.some((x) => x === undefined)) return undefined;
      return e.kind === "List" ? `[${items.join(", ")}]` : `(${items.join(", ")}${items.length === 1 ? "," : ""})`;
    }
    default:
      return undefined;
  }
}

function callText(e: Extract<PyExpr, { kind: "Call" }>, known: ReadonlyMap<string, ClosureValue>, locals: ReadonlyMap<string, string>): string | undefined {
  const callee = dotted(e.func);
  if (callee === "tvm.tirx.const" || callee === "tirx.const" || callee === "const") {
    // tvm.tirx.const(v, dtype) is a typed constant: T.<dtype>(v).
    const dtypeNode = e.args[1] ?? e.keywords.find((k) => k.name === "dtype")?.value;
    const dt = dtypeNode === undefined ? undefined : evaluate(dtypeNode, known);
    const value = e.args[0] === undefined ? undefined : scriptText(e.args[0], known, locals);
    return typeof dt !== "string" || value === undefined ? undefined : `T.${dt}(${value})`;
  }
  if (e.func.kind === "Attribute" && e.func.attr === "astype") {
    // `x.astype(dtype)`, TVM's expression method, which the parser reads as well.
    const operand = scriptText(e.func.value, known, locals);
    const dt = e.args.length === 1 ? scriptText(e.args[0]!, known, locals) : undefined;
    return operand === undefined || dt === undefined ? undefined : `(${operand}).astype(${dt})`;
  }
  const helper = callee === undefined ? undefined : known.get(callee);
  const isHelper = typeof helper === "object" && "expr" in helper && helper.expr.startsWith("lambda ");
  const name = callee === undefined ? undefined : callee.startsWith("T.") || isHelper ? callee : TIR_CONSTRUCTORS[callee];
  if (name === undefined) return undefined;
  const args = e.args.map((a) => scriptText(a, known, locals));
  const keywords = e.keywords.map((k) => wrap(scriptText(k.value, known, locals), (v) => `${k.name}=${v}`));
  if ([...args, ...keywords].some((a) => a === undefined)) return undefined;
  return `${name}(${[...args, ...keywords].join(", ")})`;
}

function dotted(e: PyExpr): string | undefined {
  if (e.kind === "Name") return e.id;
  if (e.kind !== "Attribute") return undefined;
  return wrap(dotted(e.value), (base) => `${base}.${e.attr}`);
}

const wrap = (s: string | undefined, f: (s: string) => string): string | undefined => (s === undefined ? undefined : f(s));

function formatted(body: string, known: ReadonlyMap<string, ClosureValue>): string | undefined {
  let ok = true;
  const text = body.replace(/\{([^{}]*)\}/g, (_, inner: string) => {
    const v = constantValue(inner, known);
    if (v === undefined || typeof v === "object") ok = false;
    return String(v);
  });
  return ok ? text : undefined;
}

function evaluate(e: PyExpr, known: ReadonlyMap<string, ClosureValue>): number | string | undefined {
  switch (e.kind) {
    case "Number":
    case "String":
      return e.value;
    case "Name": {
      const v = known.get(e.id);
      return typeof v === "object" ? undefined : v;
    }
    case "UnaryOp": {
      const v = evaluate(e.operand, known);
      if (typeof v !== "number") return undefined;
      return e.op === "-" ? -v : e.op === "+" ? v : undefined;
    }
    case "Call": {
      // str(n) of an integer or a string, as Python writes it.
      if (e.func.kind === "Name" && e.func.id === "str" && e.args.length === 1 && e.keywords.length === 0) {
        const v = evaluate(e.args[0]!, known);
        return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v)) ? String(v) : undefined;
      }
      // float("inf"), float("-inf"), float("nan")
      const special = e.func.kind === "Name" && e.func.id === "float" && e.args.length === 1 ? e.args[0] : undefined;
      if (special?.kind !== "String") return undefined;
      return ({ inf: Infinity, "-inf": -Infinity, nan: Number.NaN } as Record<string, number>)[special.value.toLowerCase()];
    }
    case "BinOp": {
      const a = evaluate(e.left, known);
      const b = evaluate(e.right, known);
      if (typeof a === "string" && typeof b === "string") return e.op === "+" ? a + b : undefined;
      if (typeof a !== "number" || typeof b !== "number") return undefined;
      return arithmetic(e.op, a, b);
    }
    default:
      return undefined;
  }
}

/** Python's arithmetic on numbers; `//` and `%` floor, and only integers are divided. */
const PY_ARITHMETIC: Readonly<Record<string, (a: number, b: number) => number | undefined>> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "**": (a, b) => a ** b,
  "//": (a, b) => (b === 0 || !Number.isInteger(a) || !Number.isInteger(b) ? undefined : Math.floor(a / b)),
  "%": (a, b) => (b === 0 || !Number.isInteger(a) || !Number.isInteger(b) ? undefined : a - Math.floor(a / b) * b),
};

function arithmetic(op: string, a: number, b: number): number | undefined {
  return Object.hasOwn(PY_ARITHMETIC, op) ? PY_ARITHMETIC[op]!(a, b) : undefined;
}

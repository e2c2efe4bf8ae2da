/**
 * Entry points: TVMScript text to an IRModule or a PrimFunc. Top-level imports and comments are
 * ignored; `NAME = <number>` defines a constant usable in the functions (as Python globals are).
 */
import { IRError } from "../errors.js";
import { isValidDType } from "../dtype.js";
import { type Var, variable } from "../expr.js";
import { type IRModule, type PrimFunc, irModule } from "../func.js";
import { type PyExpr, type PyStmt, dottedName } from "./ast.js";
import { ParseFailure, type SourceFile, TVMScriptSyntaxError, fail, sourceFile } from "./errors.js";
import { buildPrimFunc, isPrimFuncDecorator } from "./func-builder.js";
import { parsePython } from "./py-parser.js";
import type { Binding } from "./scope.js";
import type { DialectOption } from "./dialect.js";
import { moduleFunctions } from "./module-functions.js";
import { isModuleAttrsCall, moduleAttrs } from "./module-attrs.js";
import type { AttrValue } from "../stmt.js";

export interface ParseOptions {
  /** Shown in error messages; default `<string>`. */
  fileName?: string;
  /** Which meaning `T.alloc_buffer` has (see `dialect.ts`); default "auto", decided per function. */
  dialect?: DialectOption;
  /**
   * Values of names the script uses but does not define, as TVM's parser takes them from the
   * Python closure (`dtype`, `extent`); a module-level `NAME = <number>` in the text wins.
   * `{ expr: "T.float32(1)" }` is a TIR value built in Python, given as TVMScript expression text:
   * it is evaluated where the name is used.
   */
  closure?: Readonly<Record<string, ClosureValue>>;
}

/**
 * A Python value the script may name: a number, a string, TVMScript expression text
 * (`{ expr: "T.float32(1)" }`), or the text of a `@T.inline` macro (`{ macro: "def f(A):\n    ..." }`).
 */
export type ClosureValue = number | string | { readonly expr: string } | { readonly macro: string } | ClosureVariable;

/**
 * A TIR variable built in Python (`tvm.tirx.Var("n", "int32")`): every name given the same object
 * is the same variable, in every function of the module (as TVM's parser uses the one Python object).
 */
export interface ClosureVariable {
  readonly var: string;
  readonly dtype: string;
}

/**
 * Parses TVMScript: an `@I.ir_module class` with `@T.prim_func` members, or bare `@T.prim_func`
 * functions; each function is keyed by its Python name.
 */
export function parseTVMScript(text: string, opts: ParseOptions = {}): IRModule {
  const file = sourceFile(text, opts.fileName ?? "<string>");
  return withDiagnostics(file, () => {
    const functions = new Map<string, PrimFunc>();
    const header: ModuleHeader = { attrs: {}, classes: 0 };
    const variables = new Map<ClosureVariable, Var>();
    const constants = new Map<string, Binding>(Object.entries(opts.closure ?? {}).map(([name, value]) => [name, closureBinding(name, value, variables)]));
    const stmts = parsePython(text);
    for (const s of stmts) topLevel(s, functions, header, constants, opts.dialect ?? "auto");
    if (functions.size === 0 && header.classes === 0) {
      fail("no @T.prim_func function found", stmts[0]?.pos ?? { line: 1, column: 1 });
    }
    return irModule(functions, header.attrs);
  });
}

/** Parses text that defines exactly one function. */
export function parsePrimFunc(text: string, opts: ParseOptions = {}): PrimFunc {
  const mod = parseTVMScript(text, opts);
  if (mod.functions.size !== 1) {
    const file = sourceFile(text, opts.fileName ?? "<string>");
    throw new TVMScriptSyntaxError(`expected exactly one function, found ${mod.functions.size} (${[...mod.functions.keys()].join(", ")})`, file, {
      line: 1,
      column: 1,
    });
  }
  return [...mod.functions.values()][0]!;
}

function closureBinding(name: string, value: ClosureValue, variables: Map<ClosureVariable, Var>): Binding {
  if (typeof value === "string") return { kind: "string", value };
  if (typeof value === "number") return { kind: "number", value, isFloat: !Number.isInteger(value) };
  if ("var" in value) {
    if (!isValidDType(value.dtype)) throw new IRError(`closure variable ${name}: unknown dtype "${value.dtype}"`);
    const v = variables.get(value) ?? variable(value.var, value.dtype);
    variables.set(value, v);
    return { kind: "var", var: v };
  }
  if ("macro" in value) return macroBinding(name, value.macro);
  let stmts: PyStmt[];
  try {
    stmts = parsePython(`${name} = ${value.expr}\n`);
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    throw new IRError(`closure value ${name} = ${value.expr}: ${err.reason}`);
  }
  const [s] = stmts;
  if (stmts.length !== 1 || s?.kind !== "Assign") throw new IRError(`closure value ${name} = ${value.expr}: not a single expression`);
  return { kind: "expr", text: value.expr, node: s.value };
}

function macroBinding(name: string, text: string): Binding {
  let stmts: PyStmt[];
  try {
    stmts = parsePython(text);
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    return { kind: "broken macro", problem: `closure macro ${name}: ${err.reason} (line ${err.pos.line} of its text)` };
  }
  const [def] = stmts;
  if (stmts.length !== 1 || def?.kind !== "FunctionDef")
    return { kind: "broken macro", problem: `closure macro ${name}: expected one "def ${name}(...):" function` };
  return { kind: "macro", def };
}

function withDiagnostics<T>(file: SourceFile, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof ParseFailure) throw new TVMScriptSyntaxError(err.reason, file, err.pos);
    if (err instanceof IRError) throw new TVMScriptSyntaxError(err.message, file, { line: 1, column: 1 });
    throw err;
  }
}

/** What an `@I.ir_module` class holds besides its functions. */
interface ModuleHeader {
  attrs: Record<string, AttrValue>;
  /** How many module classes were read (an empty one is a module without functions). */
  classes: number;
}

function topLevel(s: PyStmt, functions: Map<string, PrimFunc>, header: ModuleHeader, constants: Map<string, Binding>, dialect: DialectOption): void {
  switch (s.kind) {
    case "Import":
    case "Pass":
      return;
    case "ExprStmt":
      if (s.value.kind === "String") return; // module docstring
      break;
    case "Assign":
      if (s.target.kind === "Name") {
        const value = numericConstant(s.value);
        if (value !== undefined) {
          constants.set(s.target.id, { kind: "number", ...value });
          return;
        }
      }
      break;
    case "FunctionDef":
      addFunction(functions, s.name, buildPrimFunc(s, constants, dialect), s);
      return;
    case "ClassDef":
      return moduleClass(s, functions, header, constants, dialect);
    default:
      break;
  }
  fail("unsupported top-level statement: expected @T.prim_func functions, an @I.ir_module class, imports or NAME = <number> constants", s.pos);
}

function numericConstant(e: PyExpr): { value: number; isFloat: boolean } | undefined {
  if (e.kind === "Number") return { value: e.value, isFloat: e.isFloat };
  if (e.kind === "UnaryOp" && e.op === "-" && e.operand.kind === "Number") {
    return { value: -e.operand.value, isFloat: e.operand.isFloat };
  }
  return undefined;
}

function moduleClass(
  s: Extract<PyStmt, { kind: "ClassDef" }>,
  functions: Map<string, PrimFunc>,
  header: ModuleHeader,
  constants: Map<string, Binding>,
  dialect: DialectOption,
): void {
  header.classes++;
  const isModule = s.decorators.some((d) => {
    const name = dottedName(d.kind === "Call" ? d.func : d);
    return name === "I.ir_module" || name === "tvm.script.ir_module" || name === "ir_module";
  });
  if (!isModule) fail(`missing @I.ir_module decorator on class "${s.name}"`, s.pos);
  const members = s.body.filter((m): m is Extract<PyStmt, { kind: "FunctionDef" }> => m.kind === "FunctionDef");
  const module = moduleFunctions(s.name, members);
  for (const member of s.body) {
    if (member.kind === "Pass" || (member.kind === "ExprStmt" && member.value.kind === "String")) continue;
    if (member.kind === "ExprStmt" && isModuleAttrsCall(member.value)) {
      Object.assign(header.attrs, moduleAttrs(member.value));
      continue;
    }
    if (member.kind !== "FunctionDef") fail("an @I.ir_module class may only contain @T.prim_func functions and I.module_attrs({...})", member.pos);
    if (!member.decorators.some(isPrimFuncDecorator)) {
      fail(`missing @T.prim_func decorator on function "${member.name}"`, member.pos);
    }
    addFunction(functions, member.name, buildPrimFunc(member, constants, dialect, module), member);
  }
}

function addFunction(functions: Map<string, PrimFunc>, name: string, f: PrimFunc, s: PyStmt): void {
  if (functions.has(name)) fail(`function "${name}" is defined twice`, s.pos);
  functions.set(name, f);
}

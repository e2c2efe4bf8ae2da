/**
 * The syntax tree of the Python subset that TVMScript uses. It is purely syntactic: what the
 * names and calls mean is decided later by the IR builder.
 */
import type { SourcePos } from "./errors.js";

export type BinOpText = "+" | "-" | "*" | "/" | "//" | "%" | "**" | "<<" | ">>" | "&" | "|" | "^";
export type CompareText = "<" | "<=" | ">" | ">=" | "==" | "!=";

export interface Keyword {
  readonly name: string;
  readonly value: PyExpr;
  readonly pos: SourcePos;
}

export type PyExpr =
  | { readonly kind: "Name"; readonly id: string; readonly pos: SourcePos }
  | { readonly kind: "Number"; readonly value: number; readonly isFloat: boolean; readonly pos: SourcePos }
  | { readonly kind: "String"; readonly value: string; readonly pos: SourcePos }
  /** `True`, `False`, `None`. */
  | { readonly kind: "Constant"; readonly value: boolean | null; readonly pos: SourcePos }
  | { readonly kind: "Attribute"; readonly value: PyExpr; readonly attr: string; readonly pos: SourcePos }
  | {
      readonly kind: "Call";
      readonly func: PyExpr;
      readonly args: readonly PyExpr[];
      readonly keywords: readonly Keyword[];
      readonly pos: SourcePos;
    }
  | { readonly kind: "Subscript"; readonly value: PyExpr; readonly indices: readonly PyExpr[]; readonly pos: SourcePos }
  | {
      readonly kind: "Slice";
      readonly lower?: PyExpr | undefined;
      readonly upper?: PyExpr | undefined;
      readonly step?: PyExpr | undefined;
      readonly pos: SourcePos;
    }
  | { readonly kind: "Tuple"; readonly elts: readonly PyExpr[]; readonly pos: SourcePos }
  | { readonly kind: "List"; readonly elts: readonly PyExpr[]; readonly pos: SourcePos }
  /** `*dims` inside a list or tuple display. */
  | { readonly kind: "Starred"; readonly value: PyExpr; readonly pos: SourcePos }
  | { readonly kind: "Dict"; readonly keys: readonly PyExpr[]; readonly values: readonly PyExpr[]; readonly pos: SourcePos }
  | {
      readonly kind: "BinOp";
      readonly op: BinOpText;
      readonly left: PyExpr;
      readonly right: PyExpr;
      readonly pos: SourcePos;
      /** Where the operator itself is, for errors about the operation. */
      readonly opPos: SourcePos;
    }
  | { readonly kind: "UnaryOp"; readonly op: "-" | "+" | "not" | "~"; readonly operand: PyExpr; readonly pos: SourcePos }
  | {
      readonly kind: "Compare";
      readonly op: CompareText;
      readonly left: PyExpr;
      readonly right: PyExpr;
      readonly pos: SourcePos;
      readonly opPos: SourcePos;
    }
  | { readonly kind: "BoolOp"; readonly op: "and" | "or"; readonly values: readonly PyExpr[]; readonly pos: SourcePos }
  /** `lambda x, y: body` (TVMScript uses it for the combiner of `T.comm_reducer`). */
  | { readonly kind: "Lambda"; readonly params: readonly string[]; readonly body: PyExpr; readonly pos: SourcePos }
  /** `body if test else orelse`. */
  | { readonly kind: "IfExp"; readonly test: PyExpr; readonly body: PyExpr; readonly orelse: PyExpr; readonly pos: SourcePos };

export interface Param {
  readonly name: string;
  readonly annotation?: PyExpr | undefined;
  readonly pos: SourcePos;
}

export type PyStmt =
  | {
      readonly kind: "FunctionDef";
      readonly name: string;
      readonly params: readonly Param[];
      /** The `-> T.int32` return annotation, if any. */
      readonly returns?: PyExpr | undefined;
      readonly decorators: readonly PyExpr[];
      readonly body: readonly PyStmt[];
      readonly pos: SourcePos;
    }
  | {
      readonly kind: "ClassDef";
      readonly name: string;
      readonly decorators: readonly PyExpr[];
      readonly body: readonly PyStmt[];
      readonly pos: SourcePos;
    }
  | {
      readonly kind: "For";
      readonly target: PyExpr;
      readonly iter: PyExpr;
      readonly body: readonly PyStmt[];
      readonly pos: SourcePos;
    }
  | {
      readonly kind: "With";
      readonly item: PyExpr;
      readonly asTarget?: PyExpr | undefined;
      readonly body: readonly PyStmt[];
      readonly pos: SourcePos;
    }
  | {
      readonly kind: "If";
      readonly test: PyExpr;
      readonly body: readonly PyStmt[];
      readonly orelse: readonly PyStmt[];
      readonly pos: SourcePos;
    }
  | { readonly kind: "Assign"; readonly target: PyExpr; readonly value: PyExpr; readonly pos: SourcePos }
  | {
      readonly kind: "AugAssign";
      readonly target: PyExpr;
      readonly op: BinOpText;
      readonly value: PyExpr;
      readonly pos: SourcePos;
    }
  | {
      readonly kind: "AnnAssign";
      readonly target: PyExpr;
      readonly annotation: PyExpr;
      readonly value?: PyExpr | undefined;
      readonly pos: SourcePos;
    }
  | { readonly kind: "ExprStmt"; readonly value: PyExpr; readonly pos: SourcePos }
  | { readonly kind: "Pass"; readonly pos: SourcePos }
  | { readonly kind: "Return"; readonly value?: PyExpr | undefined; readonly pos: SourcePos }
  | { readonly kind: "Assert"; readonly test: PyExpr; readonly msg?: PyExpr | undefined; readonly pos: SourcePos }
  | { readonly kind: "While"; readonly test: PyExpr; readonly body: readonly PyStmt[]; readonly pos: SourcePos }
  | { readonly kind: "Break"; readonly pos: SourcePos }
  | { readonly kind: "Continue"; readonly pos: SourcePos }
  /** `import x` / `from x import y`: accepted and ignored. */
  | { readonly kind: "Import"; readonly pos: SourcePos };

export function isName(e: PyExpr, id?: string): e is Extract<PyExpr, { kind: "Name" }> {
  return e.kind === "Name" && (id === undefined || e.id === id);
}

/** The dotted spelling of `T.axis.spatial`-style callees, or undefined for anything else. */
export function dottedName(e: PyExpr): string | undefined {
  if (e.kind === "Name") return e.id;
  if (e.kind === "Attribute") {
    const base = dottedName(e.value);
    return base === undefined ? undefined : `${base}.${e.attr}`;
  }
  return undefined;
}

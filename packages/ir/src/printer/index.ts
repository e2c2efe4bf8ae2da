/**
 * TVMScript printer: renders IR as the text a TVM (≈0.13–0.20) user knows.
 *
 * Printed conventions (the parser accepts exactly this):
 * - A module prints as `@I.ir_module class Module:` with each function; a lone PrimFunc as
 *   `@T.prim_func def <name>(...)`, named by `funcName`, else `attrs.global_symbol`, else `main`.
 *   Both start with the `# from tvm.script import ...` header. `T.func_attr({...})` lists all attrs.
 * - Parameters: a compact, constant-shape global buffer is annotated `A: T.Buffer((m, n), "float32")`;
 *   any other buffer is `a: T.handle` plus `A = T.match_buffer(a, ...)`; scalars `n: T.int32`.
 *   Variables used but never bound (symbolic shapes, `T.Let` variables) are declared first: `M = T.int32()`.
 * - The implicit root block prints as the comment `# with T.block("root"):` with its alloc_buffers and
 *   body at function level.
 * - Buffers: `T.alloc_buffer((16,), "int32", scope="shared")`; float32, scope "global", alignment 64,
 *   offset_factor 0 and elem_offset 0 are omitted. Regions: `A[vi, 0:16]`.
 * - Loops: perfectly nested serial loops from 0 without annotations → `for i, j in T.grid(a, b):`;
 *   `range(n)` / `range(lo, hi)`; `T.parallel`, `T.vectorized`, `T.unroll`,
 *   `T.thread_binding(n, thread="threadIdx.x")`; annotations → `T.serial(n, annotations={...})`.
 * - Blocks: runs of spatial/reduce iterators bound to an enclosing loop with the same domain →
 *   `vi, vj = T.axis.remap("SS", [i, j])`, others `v = T.axis.spatial(ext or (lo, hi), binding)`;
 *   then `T.where`, `T.reads`, `T.writes` (always), `T.block_attr`, alloc/match buffers, `with T.init():`.
 * - Expressions use Python precedence with minimal parentheses: `//`, `%` (floor), `/` (float only),
 *   `T.Div`/`T.truncmod` (C semantics), `T.min`/`T.max`, `and`/`or`/`not`, `T.Select`, `T.Cast("f32", x)`,
 *   `T.Ramp`, `T.Broadcast`, `T.Let(body, where={x: v})`, calls `T.<op>(...)`. Literals: int32 bare,
 *   other ints `T.int64(4)`, floats `T.float32(0.0)`, bools `T.bool(True)`, strings double-quoted.
 * - Lowered code: `x: T.int32 = v` / `with T.LetStmt(v) as x:`; `T.allocate([n], "f32", "shared")` followed
 *   by a `T.Buffer(..., data=...)` view when the body uses it; `T.decl_buffer`; `T.launch_thread("threadIdx.x", n)`;
 *   `T.attr(node, "key", v)`. A let/allocate/attr that ends its scope prints flat, otherwise as `with ...:`.
 * - Names are hints: distinct objects alive in the same scope with the same name print as `x`, `x_1`, ...;
 *   sibling scopes reuse names. Non-identifier characters become `_`.
 * - `highlight`: the header line of each highlighted statement (For, BlockRealize or its Block, ...) gets
 *   a line of `^` beneath it, as TVM renders schedule errors.
 */
import { IRError } from "../errors.js";
import type { PrimExpr } from "../expr.js";
import type { IRModule, PrimFunc } from "../func.js";
import type { Stmt } from "../stmt.js";
import { PrintContext } from "./context.js";
import { exprText } from "./expr-printer.js";
import { printPrimFunc } from "./func-printer.js";
import { LineWriter } from "./lines.js";
import { attrValueText } from "./literals.js";
import { StmtPrinter } from "./stmt-printer.js";
import { ANSI_STYLE, PLAIN_STYLE } from "./style.js";

/** `A_shared[threadIdx_x * 4 + 1]`: an access as diagnostics name it. */
export { describeAccess } from "./expr-text.js";

export interface PrinterOptions {
  /** ANSI colours for keywords, strings, numbers and comments (default off). */
  color?: boolean;
  /** Nodes (For, BlockRealize, Block, any Stmt, a PrimFunc) whose header line is underlined with `^`. */
  highlight?: ReadonlySet<object>;
  /**
   * "course" (default): the course's TVM (`T.block`, block allocations as `T.alloc_buffer`);
   * "tvm": today's TVM (`@T.prim_func(s_tir=True)`, `T.sblock`, `T.sblock_alloc_buffer`, flat
   * allocations as `T.alloc_buffer`). The parser reads both back to the same IR.
   */
  dialect?: "course" | "tvm";
}

export interface TVMScriptPrintOptions extends PrinterOptions {
  /** Name of a lone PrimFunc's `def` (ignored for modules). */
  funcName?: string;
}

/** The `kind` of a node handed to a public entry point, or an IRError naming what was passed instead. */
function checkNodeKind(node: unknown, fn: string, expected: string): string {
  const kind = typeof node === "object" && node !== null ? (node as { kind?: unknown }).kind : undefined;
  if (typeof kind !== "string") {
    throw new IRError(`${fn} expects ${expected}, got ${node === null ? "null" : typeof node}`);
  }
  return kind;
}

function makeContext(opts: PrinterOptions): PrintContext {
  return new PrintContext(opts.color ? ANSI_STYLE : PLAIN_STYLE, opts.highlight ?? new Set(), opts.dialect ?? "course");
}

function defaultFuncName(func: PrimFunc): string {
  const symbol = func.attrs["global_symbol"];
  return typeof symbol === "string" && symbol !== "" ? symbol : "main";
}

/** The whole module or function as TVMScript, ending with a newline. */
export function printTVMScript(node: IRModule | PrimFunc, opts: TVMScriptPrintOptions = {}): string {
  const kind = checkNodeKind(node, "printTVMScript", "an IRModule or a PrimFunc");
  if (kind !== "IRModule" && kind !== "PrimFunc") {
    throw new IRError(`printTVMScript expects an IRModule or a PrimFunc, got a ${kind} (use printStmt or printExpr)`);
  }
  const style = opts.color ? ANSI_STYLE : PLAIN_STYLE;
  const out = new LineWriter(opts.highlight ?? new Set());
  if (node.kind === "PrimFunc") {
    out.line(0, style.comment("# from tvm.script import tir as T"));
    out.blank();
    printPrimFunc(makeContext(opts), out, node, opts.funcName ?? defaultFuncName(node), 0);
    return `${out.text()}\n`;
  }
  out.line(0, style.comment("# from tvm.script import ir as I"));
  out.line(0, style.comment("# from tvm.script import tir as T"));
  out.blank();
  out.line(0, "@I.ir_module");
  out.line(0, `${style.keyword("class")} Module:`);
  let first = true;
  if (node.attrs !== undefined && Object.keys(node.attrs).length > 0) {
    out.line(
      1,
      `I.module_attrs(${attrValueText(node.attrs, style, () => {
        throw new IRError("module attributes hold constants only");
      })})`,
    );
    first = false;
  }
  for (const [name, func] of node.functions) {
    if (!first) out.blank();
    first = false;
    printPrimFunc(makeContext(opts), out, func, name, 1);
  }
  if (first) out.line(1, style.keyword("pass"));
  return `${out.text()}\n`;
}

/** One expression, variables named by their hints (for diagnostics). */
export function printExpr(e: PrimExpr, opts: PrinterOptions = {}): string {
  checkNodeKind(e, "printExpr", "an expression");
  return exprText(makeContext(opts), e);
}

/** One statement, variables and buffers named by their hints (for diagnostics); no trailing newline. */
export function printStmt(s: Stmt, opts: PrinterOptions = {}): string {
  checkNodeKind(s, "printStmt", "a statement");
  const ctx = makeContext(opts);
  const out = new LineWriter(ctx.highlight);
  new StmtPrinter(ctx, out).printBody(s, 0);
  return out.text();
}

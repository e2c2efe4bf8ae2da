/**
 * PrimFuncs and IRModules: the function signature, `T.func_attr`, parameter buffers and the
 * implicit root block.
 */
import { IRError } from "../errors.js";
import type { PrimFunc } from "../func.js";
import type { Var } from "../expr.js";
import type { Block, Stmt } from "../stmt.js";
import { forEachStmt } from "../functor.js";
import { bufferCall, isSimpleParamBuffer, matchBufferLine, shapeText } from "./buffer-decl.js";
import type { PrintContext } from "./context.js";
import { exprText } from "./expr-printer.js";
import { collectFreeBuffers, collectFreeVars } from "./free-vars.js";
import { attrValueText, pyString } from "./literals.js";
import type { LineWriter } from "./lines.js";
import { sanitizeIdentifier } from "./names.js";
import { StmtPrinter } from "./stmt-printer.js";

/**
 * The root block TVM leaves implicit: the body is the realize of a block named "root" with no
 * iterators, predicate, regions, init, annotations or match_buffers, that owns allocations or
 * contains blocks. It prints as the comment `# with T.block("root"):` with its contents inline.
 */
function implicitRootBlock(body: Stmt): Block | undefined {
  if (body.kind !== "BlockRealize" || body.iterValues.length !== 0) return undefined;
  const p = body.predicate;
  if (!(p.kind === "IntImm" && p.value === 1)) return undefined;
  const b = body.block;
  const plain =
    b.name === "root" &&
    b.iterVars.length === 0 &&
    b.reads.length === 0 &&
    b.writes.length === 0 &&
    b.init === undefined &&
    b.matchBuffers.length === 0 &&
    Object.keys(b.annotations).length === 0;
  if (!plain) return undefined;
  return b.allocBuffers.length > 0 || containsBlock(b.body) ? b : undefined;
}

/**
 * Thread variables launched more than once (`T.launch_thread(tx, 32)` twice with one `tx`): they
 * are declared up front with `T.env_thread`, so that every launch names the same variable.
 */
function relaunchedThreadVars(body: Stmt): Var[] {
  const launches = new Map<Var, number>();
  forEachStmt(body, (s) => {
    if (s.kind === "AttrStmt" && (s.key === "thread_extent" || s.key === "virtual_thread") && s.node !== undefined) {
      launches.set(s.node, (launches.get(s.node) ?? 0) + 1);
    }
  });
  return [...launches].filter(([, n]) => n > 1).map(([v]) => v);
}

/** The dtype a function returns (`return x`, i.e. T.ret), printed as `-> T.int32` for calls to it. */
function returnDType(body: Stmt): string | undefined {
  let dt: string | undefined;
  forEachStmt(body, (s) => {
    if (dt === undefined && s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "ret") dt = s.value.dtype;
  });
  return dt;
}

function containsBlock(s: Stmt): boolean {
  let found = false;
  forEachStmt(s, (x) => {
    if (x.kind === "BlockRealize") found = true;
  });
  return found;
}

/** Rejects a malformed function object with an IRError naming the missing field. */
function checkPrimFunc(func: PrimFunc, name: string): void {
  const missing = !Array.isArray(func.params)
    ? "params (an array of Vars)"
    : !(func.bufferMap instanceof Map)
      ? "bufferMap (a Map from Var to Buffer)"
      : typeof func.attrs !== "object" || func.attrs === null
        ? "attrs (an object)"
        : typeof func.body !== "object" || func.body === null
          ? "body (a Stmt)"
          : undefined;
  if (missing !== undefined) throw new IRError(`cannot print function "${name}": it has no valid ${missing}`);
}

export function printPrimFunc(ctx: PrintContext, out: LineWriter, func: PrimFunc, name: string, indent: number): void {
  checkPrimFunc(func, name);
  const names = ctx.names;
  names.scoped(() => {
    // Parameters: a simple buffer is annotated inline, anything else is a handle plus a match_buffer.
    const dataUses = new Map<object, number>();
    for (const b of func.bufferMap.values()) dataUses.set(b.data, (dataUses.get(b.data) ?? 0) + 1);
    const inlined = new Set<PrimFunc["params"][number]>();
    const paramNames = func.params.map((p) => {
      const b = func.bufferMap.get(p);
      if (b !== undefined && isSimpleParamBuffer(b) && dataUses.get(b.data) === 1) {
        inlined.add(p);
        return ctx.defineBuffer(b);
      }
      return names.define(p, p.name, "v");
    });
    const freeVars = collectFreeVars(func, { implicitElemOffsets: ctx.dialect === "tvm" }).map((v) => ({ v, name: names.define(v, v.name, "v") }));
    // Today's dialect only: the course's prints every launch as it always has (its goldens).
    const envThreads = ctx.dialect === "tvm" ? relaunchedThreadVars(func.body).map((v) => ({ v, name: names.define(v, v.name, "v") })) : [];
    const paramTexts = func.params.map((p, i) => {
      const b = func.bufferMap.get(p);
      if (b !== undefined && inlined.has(p)) {
        return `${paramNames[i]}: ${ctx.tir("Buffer")}(${shapeText(ctx, b.shape)}, ${pyString(b.dtype, ctx.style)})`;
      }
      return `${paramNames[i]}: ${ctx.tir(p.dtype)}`;
    });

    out.line(indent, ctx.dialect === "tvm" ? `@${ctx.tir("prim_func")}(s_tir=${ctx.style.keyword("True")})` : `@${ctx.tir("prim_func")}`);
    const returned = returnDType(func.body);
    const returns = returned === undefined ? "" : ` -> ${ctx.tir(returned)}`;
    out.line(indent, `${ctx.style.keyword("def")} ${sanitizeIdentifier(name, "main")}(${paramTexts.join(", ")})${returns}:`, func);
    const inner = indent + 1;
    for (const { v, name: n } of freeVars) out.line(inner, `${n} = ${ctx.tir(v.dtype)}()`);
    for (const { v, name: n } of envThreads) out.line(inner, `${n} = ${ctx.tir("env_thread")}(${pyString(v.name, ctx.style)})`);
    for (const b of collectFreeBuffers(func)) {
      const rhs = bufferCall(ctx, "Buffer", b);
      out.line(inner, `${ctx.defineBuffer(b)} = ${rhs}`);
    }
    if (Object.keys(func.attrs).length > 0) {
      const attrs = attrValueText(func.attrs, ctx.style, (e) => exprText(ctx, e));
      out.line(inner, `${ctx.tir("func_attr")}(${attrs})`);
    }
    func.params.forEach((p, i) => {
      const b = func.bufferMap.get(p);
      if (b === undefined || inlined.has(p)) return;
      out.line(inner, matchBufferLine(ctx, b, paramNames[i]!));
    });

    const printer = new StmtPrinter(ctx, out);
    const root = implicitRootBlock(func.body);
    if (root === undefined) {
      printer.printBody(func.body, inner);
      return;
    }
    out.line(inner, ctx.style.comment(`# with ${ctx.blockTir("block")}("root"):`), func.body, root);
    printer.printAllocBuffers(root.allocBuffers, inner);
    printer.printBody(root.body, inner);
  });
}

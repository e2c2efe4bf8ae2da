/**
 * Statements to TVMScript lines, following TVM's printer: `T.grid` for perfect serial nests,
 * `T.axis.remap` for blocks bound directly to loop variables, and "concise scoping" for
 * let/attr/allocate statements that end their scope (printed flat instead of as `with`).
 */
import type { Buffer } from "../buffer.js";
import type { PrimExpr } from "../expr.js";
import { IRError } from "../errors.js";
import { IRVisitor, usesVar } from "../functor.js";
import {
  type Allocate,
  type AttrStmt,
  type BlockRealize,
  type BufferRegion,
  type BufferStore,
  type DeclBuffer,
  DEVICE_ENTRY_KEY,
  THREAD_ID_KEY,
  type For,
  type IfThenElse,
  type IterType,
  type IterVar,
  type LetStmt,
  type Stmt,
} from "../stmt.js";
import { bufferCall, bufferRegionText, matchBufferLine } from "./buffer-decl.js";
import type { PrintContext } from "./context.js";
import { addFolded, bufferAccessText, exprText, predicatedAccessText } from "./expr-printer.js";
import { attrValueText, pyString } from "./literals.js";
import type { LineWriter } from "./lines.js";

const FOR_KIND_CALL: Record<Exclude<For["forKind"], "serial">, string> = {
  parallel: "parallel",
  vectorized: "vectorized",
  unrolled: "unroll",
  thread_binding: "thread_binding",
};

const AXIS_CALL: Record<IterType, string> = { spatial: "spatial", reduce: "reduce", scan: "scan", opaque: "opaque" };

export class StmtPrinter {
  constructor(
    private readonly ctx: PrintContext,
    private readonly out: LineWriter,
  ) {}

  private expr(e: PrimExpr): string {
    return exprText(this.ctx, e);
  }

  private kw(word: string): string {
    return this.ctx.style.keyword(word);
  }

  /** Prints a statement list; only the last statement of a scope may use concise scoping. */
  printBody(s: Stmt, indent: number): void {
    assertStmt(s);
    const stmts = s.kind === "SeqStmt" ? s.seq : [s];
    stmts.forEach((child, i) => this.printStmt(child, indent, i === stmts.length - 1));
  }

  /** Prints `s` as the body of a new naming scope, one level deeper. */
  private printNested(s: Stmt, indent: number): void {
    this.ctx.names.scoped(() => this.printBody(s, indent + 1));
  }

  printStmt(s: Stmt, indent: number, isLast: boolean): void {
    assertStmt(s);
    switch (s.kind) {
      case "BufferStore":
        return this.printStore(s, indent);
      case "SeqStmt":
        return this.printBody(s, indent);
      case "IfThenElse":
        return this.printIf(s, indent);
      case "For":
        return this.printFor(s, indent);
      case "While":
        this.out.line(indent, `${this.kw("while")} ${this.expr(s.condition)}:`, s);
        return this.printNested(s.body, indent);
      case "Evaluate":
        return this.out.line(indent, this.evaluateText(s.value), s);
      case "LetStmt":
        return this.printLet(s, indent, isLast);
      case "Allocate":
        return this.printAllocate(s, indent, isLast);
      case "DeclBuffer":
        return this.printDeclBuffer(s, indent, isLast, s);
      case "AttrStmt":
        return this.printAttr(s, indent, isLast);
      case "BlockRealize":
        return this.printBlock(s, indent);
      default:
        throw new IRError(`cannot print statement of kind "${(s as { kind?: unknown }).kind}"`);
    }
  }

  /** An evaluated call; TVM's control-flow calls print as the Python statements they come from. */
  private evaluateText(value: PrimExpr): string {
    if (value.kind !== "Call") return `${this.ctx.tir("evaluate")}(${this.expr(value)})`;
    const [first] = value.args;
    if (value.op === "ret" && first !== undefined) return `${this.kw("return")} ${this.expr(first)}`;
    if (value.op === "break_loop" && first === undefined) return this.kw("break");
    if (value.op === "continue_loop" && first === undefined) return this.kw("continue");
    const strings = value.args.slice(1).map((a) => (a.kind === "StringImm" ? a.value : undefined));
    if (value.op === "assert" && first !== undefined && strings.length > 0 && strings.every((x) => x !== undefined)) {
      return `${this.kw("assert")} ${this.expr(first)}${this.assertMessage(strings as string[])}`;
    }
    return this.expr(value);
  }

  /** `, "message"` for a RuntimeError of one part, else `, ("Kind", ["part", ...])`; nothing for none. */
  private assertMessage([kind, ...parts]: string[]): string {
    const str = (x: string): string => pyString(x, this.ctx.style);
    if (kind === "RuntimeError" && parts.length === 1) return `, ${str(parts[0]!)}`;
    if (kind === "RuntimeError" && parts.length === 0) return "";
    return `, (${str(kind!)}, [${parts.map(str).join(", ")}])`;
  }

  private printStore(s: BufferStore, indent: number): void {
    if (s.predicate !== undefined) return this.out.line(indent, predicatedAccessText(this.ctx, s, s.predicate, s.value), s);
    this.out.line(indent, `${bufferAccessText(this.ctx, s)} = ${this.expr(s.value)}`, s);
  }

  private printIf(s: IfThenElse, indent: number): void {
    this.out.line(indent, `${this.kw("if")} ${this.expr(s.condition)}:`, s);
    this.printNested(s.thenCase, indent);
    if (s.elseCase !== undefined) {
      this.out.line(indent, `${this.kw("else")}:`);
      this.printNested(s.elseCase, indent);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Loops

  /** The longest chain of directly nested loops that TVM folds into one `T.grid`. */
  private gridChain(loop: For): For[] {
    const chain: For[] = [];
    for (let l: Stmt | undefined = loop; isObject(l) && l.kind === "For"; l = l.body) {
      const isPlain = l.forKind === "serial" && isZero(l.min) && l.step === undefined && Object.keys(l.annotations).length === 0;
      const extent = l.extent;
      if (!isPlain || usesVar(extent, (v) => chain.some((c) => c.loopVar === v))) break;
      chain.push(l);
    }
    return chain;
  }

  private printFor(loop: For, indent: number): void {
    const grid = this.gridChain(loop);
    if (grid.length > 1) {
      const extents = grid.map((l) => this.expr(l.extent)).join(", ");
      this.ctx.names.scoped(() => {
        const vars = grid.map((l) => this.ctx.names.define(l.loopVar, l.loopVar.name, "v")).join(", ");
        this.out.line(indent, `${this.kw("for")} ${vars} ${this.kw("in")} ${this.ctx.tir("grid")}(${extents}):`, ...grid);
        this.withLoops(grid, () => this.printNested(grid[grid.length - 1]!.body, indent));
      });
      return;
    }
    const args: string[] = [];
    // TVM's T.serial(start, stop, step=s); a step needs both bounds.
    if (!isZero(loop.min) || loop.step !== undefined) args.push(this.expr(loop.min), this.expr(addFolded(loop.min, loop.extent)));
    else args.push(this.expr(loop.extent));
    const hasAnnotations = Object.keys(loop.annotations).length > 0;
    let callee: string;
    if (loop.forKind === "serial") {
      callee = hasAnnotations ? this.ctx.tir("serial") : "range";
    } else {
      callee = this.ctx.tir(FOR_KIND_CALL[loop.forKind]);
      if (loop.forKind === "thread_binding") args.push(`thread=${pyString(loop.threadTag ?? "", this.ctx.style)}`);
    }
    if (loop.step !== undefined) args.push(callee === "range" ? this.expr(loop.step) : `step=${this.expr(loop.step)}`);
    if (hasAnnotations) args.push(`annotations=${this.attrText(loop.annotations)}`);
    this.ctx.names.scoped(() => {
      const v = this.ctx.names.define(loop.loopVar, loop.loopVar.name, "v");
      this.out.line(indent, `${this.kw("for")} ${v} ${this.kw("in")} ${callee}(${args.join(", ")}):`, loop);
      this.withLoops([loop], () => this.printNested(loop.body, indent));
    });
  }

  private withLoops(loops: readonly For[], body: () => void): void {
    this.ctx.enclosingLoops.push(...loops);
    try {
      body();
    } finally {
      this.ctx.enclosingLoops.length -= loops.length;
    }
  }

  private attrText(value: Parameters<typeof attrValueText>[0]): string {
    return attrValueText(value, this.ctx.style, (e) => this.expr(e));
  }

  // -------------------------------------------------------------------------------------------
  // Blocks

  private printBlock(realize: BlockRealize, indent: number): void {
    const block = realize.block;
    this.out.line(indent, `${this.kw("with")} ${this.ctx.blockTir("block")}(${pyString(block.name, this.ctx.style)}):`, realize, block);
    const inner = indent + 1;
    this.ctx.names.scoped(() => {
      this.printIterVars(realize, inner);
      if (!isTrue(realize.predicate)) this.out.line(inner, `${this.ctx.tir("where")}(${this.expr(realize.predicate)})`);
      this.out.line(inner, `${this.ctx.tir("reads")}(${this.regionsText(block.reads)})`);
      this.out.line(inner, `${this.ctx.tir("writes")}(${this.regionsText(block.writes)})`);
      if (Object.keys(block.annotations).length > 0) {
        this.out.line(inner, `${this.ctx.blockTir("block_attr")}(${this.attrText(block.annotations)})`);
      }
      this.printAllocBuffers(block.allocBuffers, inner);
      for (const m of block.matchBuffers) {
        const source = bufferRegionText(this.ctx, m.source);
        this.out.line(inner, matchBufferLine(this.ctx, m.buffer, source));
      }
      if (block.init !== undefined) {
        this.out.line(inner, `${this.kw("with")} ${this.ctx.tir("init")}():`);
        this.printNested(block.init, inner);
      }
      this.printBody(block.body, inner);
    });
  }

  printAllocBuffers(buffers: readonly Buffer[], indent: number): void {
    for (const b of buffers) {
      const rhs = bufferCall(this.ctx, this.ctx.dialect === "tvm" ? "sblock_alloc_buffer" : "alloc_buffer", b);
      this.out.line(indent, `${this.ctx.defineBuffer(b)} = ${rhs}`);
    }
  }

  private regionsText(regions: readonly BufferRegion[]): string {
    return regions.map((r) => bufferRegionText(this.ctx, r)).join(", ");
  }

  /** Whether iterator `i` may join a `T.axis.remap`: bound to an enclosing loop with the same domain. */
  private isRemappable(iv: IterVar, binding: PrimExpr): boolean {
    if (iv.iterType !== "spatial" && iv.iterType !== "reduce") return false;
    if (binding.kind !== "Var") return false;
    const loop = this.ctx.enclosingLoops.find((l) => l.loopVar === binding);
    return loop !== undefined && sameValue(loop.min, iv.dom.min) && sameValue(loop.extent, iv.dom.extent);
  }

  private printIterVars(realize: BlockRealize, indent: number): void {
    const { iterVars } = realize.block;
    let run: number[] = [];
    const flushRun = (): void => {
      if (run.length === 1) this.printAxis(realize, run[0]!, indent);
      else if (run.length > 1) {
        const bindings = run.map((i) => this.expr(realize.iterValues[i]!)).join(", ");
        const kinds = run.map((i) => (iterVars[i]!.iterType === "spatial" ? "S" : "R")).join("");
        const lhs = run.map((i) => this.ctx.names.define(iterVars[i]!.var, iterVars[i]!.var.name, "v")).join(", ");
        this.out.line(indent, `${lhs} = ${this.ctx.tir("axis.remap")}(${pyString(kinds, this.ctx.style)}, [${bindings}])`);
      }
      run = [];
    };
    iterVars.forEach((iv, i) => {
      if (this.isRemappable(iv, realize.iterValues[i]!)) run.push(i);
      else {
        flushRun();
        this.printAxis(realize, i, indent);
      }
    });
    flushRun();
  }

  private printAxis(realize: BlockRealize, i: number, indent: number): void {
    const iv = realize.block.iterVars[i]!;
    const dom = isZero(iv.dom.min) ? this.expr(iv.dom.extent) : `(${this.expr(iv.dom.min)}, ${this.expr(addFolded(iv.dom.min, iv.dom.extent))})`;
    const binding = this.expr(realize.iterValues[i]!);
    const lhs = this.ctx.names.define(iv.var, iv.var.name, "v");
    this.out.line(indent, `${lhs} = ${this.ctx.tir(`axis.${AXIS_CALL[iv.iterType]}`)}(${dom}, ${binding})`);
  }

  // -------------------------------------------------------------------------------------------
  // Scoped lowered statements: flat when they end their scope, `with ...:` otherwise.

  /** Prints `lhs = rhs` (or bare `rhs`) followed by the body, flat or as a `with` scope. */
  private printScoped(
    indent: number,
    concise: boolean,
    node: object,
    rhs: string,
    defineLhs: (() => string) | undefined,
    body: (indent: number) => void,
  ): void {
    this.ctx.names.scoped(() => {
      const lhs = defineLhs?.();
      if (concise) {
        this.out.line(indent, lhs === undefined ? rhs : `${lhs} = ${rhs}`, node);
        body(indent);
      } else {
        this.out.line(indent, `${this.kw("with")} ${rhs}${lhs === undefined ? "" : ` ${this.kw("as")} ${lhs}`}:`, node);
        body(indent + 1);
      }
    });
  }

  private printLet(s: LetStmt, indent: number, isLast: boolean): void {
    const value = this.expr(s.value);
    const body = (i: number): void => this.printBody(s.body, i);
    if (this.ctx.names.has(s.variable)) {
      const rhs = `${this.ctx.tir("LetStmt")}(${value}, var=${this.ctx.varName(s.variable)})`;
      return this.printScoped(indent, false, s, rhs, undefined, body);
    }
    if (isLast) {
      this.ctx.names.scoped(() => {
        const v = this.ctx.names.define(s.variable, s.variable.name, "v");
        this.out.line(indent, `${v}: ${this.ctx.tir(s.variable.dtype)} = ${value}`, s);
        body(indent);
      });
      return;
    }
    const define = (): string => this.ctx.names.define(s.variable, s.variable.name, "v");
    this.printScoped(indent, false, s, `${this.ctx.tir("LetStmt")}(${value})`, define, body);
  }

  private printAllocate(s: Allocate, indent: number, isLast: boolean): void {
    const { buffer } = s;
    // TVM's sugar: an allocation immediately declared as its buffer prints as one `T.decl_buffer`.
    if (s.body.kind === "DeclBuffer" && s.body.buffer.data === buffer.data && !this.ctx.names.has(buffer.data)) {
      if (this.ctx.dialect === "tvm" && s.body.buffer === buffer) return this.printFlatAllocBuffer(s, s.body, indent, isLast);
      return this.printDeclBuffer(s.body, indent, isLast, s);
    }
    const extents = `[${buffer.shape.map((e) => this.expr(e)).join(", ")}]`;
    const rhs = `${this.ctx.tir("allocate")}(${extents}, ${pyString(buffer.dtype, this.ctx.style)}, ${pyString(buffer.scope, this.ctx.style)})`;
    const define = (): string => this.ctx.names.define(buffer.data, buffer.data.name, "buffer");
    this.printScoped(indent, isLast, s, rhs, define, (inner) => {
      if (usesBuffer(s.body, buffer)) {
        const view = bufferCall(this.ctx, "Buffer", buffer);
        this.out.line(inner, `${this.ctx.defineBuffer(buffer)} = ${view}`);
      }
      this.printBody(s.body, inner);
    });
  }

  /**
   * Today's `X = T.alloc_buffer(...)` for an allocation declared as its own buffer; attribute
   * scopes on its data right inside print as `annotations=` (how the parser reads them).
   */
  private printFlatAllocBuffer(s: Allocate, decl: DeclBuffer, indent: number, isLast: boolean): void {
    const annotations: Record<string, PrimExpr | PrimExpr[]> = {};
    let body = decl.body;
    while (body.kind === "AttrStmt" && body.node === s.buffer.data && isAnnotationValue(body.value) && !(body.key in annotations)) {
      annotations[body.key] = body.value.kind === "Call" ? [...body.value.args] : body.value;
      body = body.body;
    }
    let rhs = bufferCall(this.ctx, "alloc_buffer", s.buffer);
    if (Object.keys(annotations).length > 0) rhs = `${rhs.slice(0, -1)}, annotations=${this.attrText(annotations)})`;
    this.printScoped(
      indent,
      isLast,
      s,
      rhs,
      () => this.ctx.defineBuffer(s.buffer),
      (inner) => this.printBody(body, inner),
    );
  }

  private printDeclBuffer(s: DeclBuffer, indent: number, isLast: boolean, node: object): void {
    const rhs = bufferCall(this.ctx, "decl_buffer", s.buffer);
    this.printScoped(
      indent,
      isLast,
      node,
      rhs,
      () => this.ctx.defineBuffer(s.buffer),
      (inner) => this.printBody(s.body, inner),
    );
  }

  /** A constant subject keeps its dtype call: a bare `0` would read back as no subject. */
  private subjectText(e: PrimExpr): string {
    if (e.kind === "IntImm" && e.dtype === "int32") return `${this.ctx.tir("int32")}(${this.ctx.style.number(String(e.value))})`;
    return this.expr(e);
  }

  private printAttr(s: AttrStmt, indent: number, isLast: boolean): void {
    const value = this.expr(s.value);
    const body = (i: number): void => this.printBody(s.body, i);
    const node = s.node;
    if ((s.key === "thread_extent" || s.key === "virtual_thread") && node !== undefined) {
      if (this.ctx.names.has(node)) {
        const rhs = `${this.ctx.tir("launch_thread")}(${this.ctx.varName(node)}, ${value})`;
        return this.printScoped(indent, isLast, s, rhs, undefined, body);
      }
      const rhs = `${this.ctx.tir("launch_thread")}(${pyString(node.name, this.ctx.style)}, ${value})`;
      return this.printScoped(indent, isLast, s, rhs, () => this.ctx.names.define(node, node.name, "v"), body);
    }
    if (s.key === THREAD_ID_KEY && node !== undefined && !this.ctx.names.has(node) && (node.dtype === "int32" || node.dtype === "uint32")) {
      const dtype = node.dtype === "int32" ? "" : `, dtype=${pyString(node.dtype, this.ctx.style)}`;
      const rhs = `${this.ctx.tir("thread_id")}([${value}]${dtype})`;
      return this.printScoped(indent, isLast, s, rhs, () => this.ctx.names.define(node, node.name, "v"), body);
    }
    if (
      s.key === DEVICE_ENTRY_KEY &&
      node === undefined &&
      s.subject === undefined &&
      s.value.kind === "IntImm" &&
      s.value.dtype === "bool" &&
      s.value.value === 1
    ) {
      return this.printScoped(indent, isLast, s, `${this.ctx.tir("device_entry")}()`, undefined, body);
    }
    const subject = node !== undefined ? this.ctx.varName(node) : s.subject !== undefined ? this.subjectText(s.subject) : this.kw("None");
    const rhs = `${this.ctx.tir("attr")}(${subject}, ${pyString(s.key, this.ctx.style)}, ${value})`;
    this.printScoped(indent, isLast, s, rhs, undefined, body);
  }
}

/** Values an allocation annotation can hold: constants and strings (as the parser builds them). */
function isScalarAnnotation(e: PrimExpr): boolean {
  return e.kind === "IntImm" || e.kind === "FloatImm" || e.kind === "StringImm";
}

/** What the parser makes of an `annotations=` value: a scalar, or a `T.tvm_tuple` of scalars for a list. */
function isAnnotationValue(e: PrimExpr): boolean {
  return isScalarAnnotation(e) || (e.kind === "Call" && e.op === "tvm_tuple" && e.args.every(isScalarAnnotation));
}

function isObject(x: unknown): x is object {
  return typeof x === "object" && x !== null;
}

/** Rejects holes in hand-built IR (e.g. a loop without a body) with an IRError instead of a TypeError. */
function assertStmt(s: unknown): asserts s is Stmt {
  if (!isObject(s)) throw new IRError(`cannot print ${String(s)} where a statement is expected`);
}

function isZero(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.value === 0;
}

function isTrue(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.dtype === "bool" && e.value === 1;
}

/** Deep equality of expressions (as TVM's `ExprDeepEqual`); variables and buffers by identity. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  const ka = (a as { kind?: unknown }).kind;
  if (ka === "Var" || ka === "Buffer" || ka !== (b as { kind?: unknown }).kind) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Does `s` access `buffer` through loads, stores or block regions? */
function usesBuffer(s: Stmt, buffer: Buffer): boolean {
  let found = false;
  class Finder extends IRVisitor {
    override visitBufferLoad(e: Parameters<IRVisitor["visitBufferLoad"]>[0]): void {
      if (e.buffer === buffer) found = true;
      super.visitBufferLoad(e);
    }
    override visitBufferStore(st: BufferStore): void {
      if (st.buffer === buffer) found = true;
      super.visitBufferStore(st);
    }
    override visitRegion(r: BufferRegion): void {
      if (r.buffer === buffer) found = true;
      super.visitRegion(r);
    }
  }
  new Finder().visitStmt(s);
  return found;
}

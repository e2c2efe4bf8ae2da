/**
 * The statement half of the walker the CUDA, WGSL and Metal kernel emitters share: one dispatch on
 * the kind of a lowered statement, writing through `SourceLines`. A language subclass spells what
 * differs — allocations (shared memory), loop and `if`/`while` heads, declarations, barriers,
 * expression statements — and may claim attributes and calls of its own (CUDA's cp.async and
 * WMMA). A new statement kind is added here, in one place.
 */
import type { Allocate, AttrStmt, BufferStore, Call, Evaluate, For, PrimExpr, Stmt, Var } from "@tessera/ir";
import { lanesOf } from "@tessera/ir";
import { SourceLines } from "../c-family/source-lines.js";
import { checkSerialLoop, evaluateKind } from "../shader/kernel-parts.js";
import type { ExprWalker, WalkerContext } from "./expr-walker.js";

/** The most copies one unrolled loop is expanded into (larger ones stay loops). */
const MAX_EXPANDED_COPIES = 64;

export abstract class StmtWalker<C extends WalkerContext, X extends ExprWalker<C>> {
  protected readonly out = new SourceLines();
  /**
   * Changes whenever what a statement's text depends on does (a name defined, a range known).
   * Unrolled code repeats the same store objects: while it stays, their text is reused.
   */
  private scope = 0;
  private readonly storeText = new Map<BufferStore, { readonly scope: number; readonly text: string }>();

  constructor(
    protected readonly ctx: C,
    protected readonly exprs: X,
  ) {}

  /** The language's name in error messages. */
  protected abstract readonly language: string;

  protected fail(detail: string): never {
    return this.exprs.fail(detail);
  }

  // -------------------------------------------------------------------------------------------
  // Hooks: the spelling of one language

  /** Declares the allocation (shared, local, …) and walks its body (`walkAllocationBody`). */
  protected abstract allocate(s: Allocate): void;
  /** The lines opening a serial loop `name` of type `type` from `min` while `< end`, ending in `{` (C's by default). */
  protected loopHead(_s: For, type: string, name: string, min: string, end: string): readonly string[] {
    return [`for (${type} ${name} = ${min}; ${name} < ${end}; ++${name}) {`];
  }
  /**
   * For a language with no `#pragma unroll` (WGSL): the line binding an unrolled loop's variable to
   * one value in its own copy of the body (`const i : i32 = 2i;`), so the shader compiler sees
   * constant indices and a register tile stays in registers. Undefined (C's default): unrolled
   * loops stay loops, marked for the compiler by `loopHead`.
   */
  protected unrolledCopyBinding(_type: string, _name: string, _value: string): string | undefined {
    return undefined;
  }
  /** `if (c)` / `while (c)`: the head of a conditional block, without its `{`. */
  protected abstract conditionalHead(keyword: "if" | "while", condition: PrimExpr): string;
  /** A constant local: `let` bindings and the lanes of a scattered vector store (C's by default). */
  protected constant(type: string, name: string, value: string): string {
    return `${type} ${name} = ${value};`;
  }
  /** The barrier of `T.tvm_storage_sync(scope)`, or undefined when the language has none. */
  protected abstract barrier(scope: string): string | undefined;
  /** The scopes `barrier` knows, for the error. */
  protected abstract readonly barrierScopes: readonly string[];

  /** An expression evaluated for its effect. */
  protected expressionStatement(text: string): string {
    return `${text};`;
  }

  /** An attribute statement; async-copy attributes are refused, the others only scope their body. */
  protected attr(s: AttrStmt): void {
    if (s.key.startsWith("async_")) this.fail(`the ${s.key} attribute (asynchronous copies) has no ${this.language} translation`);
    this.stmt(s.body);
  }

  /** A call statement the language writes itself (CUDA's cp.async, WMMA); undefined otherwise. */
  protected specialCall(_call: Call): string | undefined {
    return undefined;
  }

  /** Whether a vector store written lane by lane computes every lane before the first store. */
  protected scatterNeedsTemporaries(_s: BufferStore): boolean {
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // The walk

  protected stmt(s: Stmt): void {
    switch (s.kind) {
      case "SeqStmt":
        for (const x of s.seq) this.stmt(x);
        return;
      case "AttrStmt":
        return this.attr(s);
      case "DeclBuffer":
        return this.stmt(s.body);
      case "Allocate":
        return this.allocate(s);
      case "For":
        return this.forLoop(s);
      case "IfThenElse":
        this.block(this.conditionalHead("if", s.condition), s.thenCase);
        if (s.elseCase !== undefined) this.block("} else", s.elseCase);
        return this.out.line("}");
      case "While":
        this.block(this.conditionalHead("while", s.condition), s.body);
        return this.out.line("}");
      case "LetStmt": {
        const type = this.exprs.type(s.variable.dtype, `let variable ${s.variable.name}`);
        const value = lanesOf(s.value.dtype) > 1 ? this.exprs.vector(s.value) : this.exprs.expr(s.value);
        const name = this.ctx.names.define(s.variable, s.variable.name);
        this.ctx.facts.bindLet(s.variable, s.value);
        this.scope++;
        this.out.line(this.constant(type, name, value));
        return this.stmt(s.body);
      }
      case "BufferStore":
        return this.store(s);
      case "Evaluate":
        return this.evaluate(s);
      case "BlockRealize":
        return this.fail(`block ${s.block.name} was not lowered; the ${this.language} generator needs lowered (block-free) kernels`);
    }
  }

  /** Walks an allocation's body once its storage is named; the scope of cached store texts ends. */
  protected walkAllocationBody(s: Allocate): void {
    this.scope++;
    this.stmt(s.body);
  }

  /** `head {`, then `body` one level deeper (the closing line is the caller's). */
  private block(head: string, body: Stmt): void {
    this.out.line(`${head} {`);
    this.out.nested(() => this.stmt(body));
  }

  private forLoop(s: For): void {
    checkSerialLoop(s, (detail) => this.fail(detail));
    const type = this.exprs.type(s.loopVar.dtype, `loop variable ${s.loopVar.name}`);
    const name = this.ctx.names.define(s.loopVar, s.loopVar.name);
    this.ctx.facts.bindLoop(s.loopVar, s.min, s.extent);
    this.scope++;
    const min = this.exprs.expr(s.min);
    const end =
      s.min.kind === "IntImm" && s.extent.kind === "IntImm"
        ? this.exprs.intLiteral(s.min.value + s.extent.value, s.loopVar.dtype)
        : s.min.kind === "IntImm" && s.min.value === 0
          ? this.exprs.expr(s.extent)
          : `(${min} + ${this.exprs.expr(s.extent)})`;
    if (this.expandUnrolled(s, type, name)) return;
    for (const line of this.loopHead(s, type, name, min, end)) this.out.line(line);
    this.out.nested(() => this.stmt(s.body));
    this.out.line("}");
  }

  /**
   * An unrolled loop of constant bounds as one block per value, each binding the loop variable
   * (`unrolledCopyBinding`), when the language asks for it and the copies stay few.
   */
  private expandUnrolled(s: For, type: string, name: string): boolean {
    if (s.forKind !== "unrolled" || s.min.kind !== "IntImm" || s.extent.kind !== "IntImm" || s.extent.value > MAX_EXPANDED_COPIES) return false;
    const bindings: string[] = [];
    for (let v = s.min.value; v < s.min.value + s.extent.value; v++) {
      const binding = this.unrolledCopyBinding(type, name, this.exprs.intLiteral(v, s.loopVar.dtype));
      if (binding === undefined) return false;
      bindings.push(binding);
    }
    for (const binding of bindings) {
      this.out.line("{");
      this.out.nested(() => {
        this.out.line(binding);
        this.stmt(s.body);
      });
      this.out.line("}");
    }
    return true;
  }

  private store(s: BufferStore): void {
    const known = this.storeText.get(s);
    if (known !== undefined && known.scope === this.scope) return this.out.line(known.text);
    const text = this.storeLine(s);
    if (text !== undefined) {
      this.storeText.set(s, { scope: this.scope, text: flattened(text) });
      this.out.line(text);
    }
  }

  /** The one line of a store, or undefined when it took several (written already). */
  private storeLine(s: BufferStore): string | undefined {
    const index = s.indices[0];
    const name = this.exprs.storageOf(s);
    if (index === undefined) return undefined;
    const lanes = lanesOf(s.value.dtype);
    if (lanes === 1) return `${this.exprs.element(s, this.exprs.expr(index))} = ${this.exprs.expr(s.value)};`;
    // An element of a buffer of vectors.
    if (lanesOf(index.dtype) === 1) return `${name}[${this.exprs.expr(index)}] = ${this.exprs.vector(s.value)};`;
    const whole = this.exprs.alignedVectorAccess(s, s.value.dtype);
    if (whole !== undefined) return `${whole} = ${this.exprs.vector(s.value)};`;
    this.scatter(s, index, lanes);
    return undefined;
  }

  /** A vector store that cannot be one access: one scalar store per lane. */
  private scatter(s: BufferStore, index: PrimExpr, lanes: number): void {
    const indices = Array.from({ length: lanes }, (_, i) => this.exprs.lane(index, i));
    const values = Array.from({ length: lanes }, (_, i) => this.exprs.lane(s.value, i));
    if (!this.scatterNeedsTemporaries(s)) {
      indices.forEach((idx, i) => this.out.line(`${this.exprs.element(s, idx)} = ${values[i]!};`));
      return;
    }
    // The value may read the storage it overwrites: compute every lane before the first store.
    const name = this.exprs.storageOf(s);
    const type = this.exprs.type(s.buffer.dtype, `buffer ${s.buffer.name}`);
    this.out.line("{");
    this.out.nested(() => {
      const temps = values.map((value, i) => {
        const t = this.ctx.names.fresh(`${name}_lane${i}`);
        this.out.line(this.constant(type, t, value));
        return t;
      });
      indices.forEach((idx, i) => this.out.line(`${this.exprs.element(s, idx)} = ${temps[i]!};`));
    });
    this.out.line("}");
  }

  private evaluate(s: Evaluate): void {
    const v = s.value;
    const special = v.kind === "Call" ? this.specialCall(v) : undefined;
    if (special !== undefined) return this.out.line(special);
    const what = evaluateKind(v, this.language, (detail) => this.fail(detail));
    if (what.kind === "none") return;
    if (what.kind === "expr") return this.out.line(this.expressionStatement(this.exprs.expr(v)));
    const barrier = this.barrier(what.scope);
    if (barrier === undefined) {
      const known = this.barrierScopes.map((k) => JSON.stringify(k)).join(" and ");
      return this.fail(`T.tvm_storage_sync(${JSON.stringify(what.scope)}) has no ${this.language} translation (only ${known})`);
    }
    this.out.line(barrier);
  }
}

/**
 * `text`, made flat: V8 keeps a string built by concatenation as a tree of its pieces, and a
 * text written many times (a repeated store) would have that tree walked again each time the
 * kernel is joined. Reading a character flattens it, once.
 */
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

/** True when `e` loads from the storage whose data variable is `data`. */
export function readsStorage(e: PrimExpr, data: Var): boolean {
  let found = false;
  const visit = (x: PrimExpr): void => {
    if (found) return;
    switch (x.kind) {
      case "BufferLoad":
        if (x.buffer.data === data) found = true;
        x.indices.forEach(visit);
        return;
      case "Binary":
        visit(x.a);
        visit(x.b);
        return;
      case "Not":
        visit(x.a);
        return;
      case "Cast":
      case "Broadcast":
        visit(x.value);
        return;
      case "Select":
        [x.condition, x.trueValue, x.falseValue].forEach(visit);
        return;
      case "Ramp":
        visit(x.base);
        visit(x.stride);
        return;
      case "Let":
        visit(x.value);
        visit(x.body);
        return;
      case "Call":
        x.args.forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(e);
  return found;
}
